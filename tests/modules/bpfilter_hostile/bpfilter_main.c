// SPDX-License-Identifier: GPL-2.0
/* The bpfilter sample's module, built with a hostile helper. */
#include "../../../samples/bpfilter/bpfilter_main.c"
