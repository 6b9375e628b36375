// SPDX-License-Identifier: GPL-2.0
#define TEST_BLOB wrong_proto
#include "testmod.h"
