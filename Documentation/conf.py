# SPDX-License-Identifier: GPL-2.0
#
# Sphinx configuration of the umh-sdk documentation (Debian's python3-sphinx
# and graphviz are enough, plus the kernel's own kernel-doc tooling, below).
# Build it with warnings as errors, into the git-ignored
# Documentation/output/:
#
#	make htmldocs
#
# The API reference (api.rst) is extracted from the kernel-doc comments of
# the sources by the kernel's Sphinx extension, kerneldoc.py, which runs the
# kernel's scripts/kernel-doc.  Both come from an unpacked Linux source tree,
# named by the environment variable UMH_LINUX_SRC; `make htmldocs` sets it
# to what scripts/linux-source.sh prints (an unpacked Debian linux-source-6.1).
# Without UMH_LINUX_SRC this file runs scripts/linux-source.sh itself, so a
# plain `sphinx-build -W -b html Documentation Documentation/output` works
# too.

import os
import subprocess
import sys

_top = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))


def _linux_source():
    src = os.environ.get('UMH_LINUX_SRC')
    if not src:
        src = subprocess.run([os.path.join(_top, 'scripts', 'linux-source.sh')],
                             check=True, stdout=subprocess.PIPE,
                             text=True).stdout.strip()
    for need in ('Documentation/sphinx/kerneldoc.py', 'scripts/kernel-doc'):
        if not os.path.exists(os.path.join(src, need)):
            sys.exit('conf.py: %s has no %s; set UMH_LINUX_SRC to an '
                     'unpacked Linux source tree' % (src, need))
    return src


_linux = _linux_source()
sys.path.insert(0, os.path.join(_linux, 'Documentation', 'sphinx'))

project = 'umh-sdk'
root_doc = 'index'

extensions = ['sphinx.ext.graphviz', 'kerneldoc']
graphviz_output_format = 'svg'

# kerneldoc.py: the script, and the directory that the paths given to
# ".. kernel-doc::" are relative to (the top of this repository).
kerneldoc_bin = os.path.join(_linux, 'scripts', 'kernel-doc')
kerneldoc_srctree = _top

# A kernel-doc warning (a parameter left undescribed, a comment it cannot
# parse) makes kernel-doc fail, which kerneldoc.py reports as a Sphinx
# warning, which -W turns into a failed build.
os.environ['KDOC_WERROR'] = '1'

# As in the kernel's own Documentation/conf.py: the sparse annotations
# that prototypes carry are attributes to the C domain, not syntax errors.
c_id_attributes = ['__user', '__iomem', '__rcu', '__force', '__must_check']

# As in the kernel's own Documentation/: literal blocks are shown as they
# are, without guessing a language.
highlight_language = 'none'

# Documentation/output/ is git-ignored; never read it back as a source.
# Documentation/tutorial/ holds the tutorial's code, not documents.
exclude_patterns = ['output', 'tutorial']

html_theme = 'alabaster'
