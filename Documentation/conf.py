# SPDX-License-Identifier: GPL-2.0
#
# Sphinx configuration of the umh-sdk documentation (Debian's python3-sphinx
# and graphviz are enough).  Build it with warnings as errors, into the
# git-ignored Documentation/output/ or anywhere outside the tree:
#
#	sphinx-build -W -b html Documentation Documentation/output

project = 'umh-sdk'
root_doc = 'index'

extensions = ['sphinx.ext.graphviz']
graphviz_output_format = 'svg'

# As in the kernel's own Documentation/: literal blocks are shown as they
# are, without guessing a language.
highlight_language = 'none'

# Documentation/output/ is git-ignored; never read it back as a source.
exclude_patterns = ['output']

html_theme = 'alabaster'
