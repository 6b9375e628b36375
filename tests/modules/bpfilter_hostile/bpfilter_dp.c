// SPDX-License-Identifier: GPL-2.0
/* The bpfilter sample's data plane, built with a hostile helper. */
#include "../../../samples/bpfilter/bpfilter_dp.c"
