// SPDX-License-Identifier: GPL-2.0
#define TEST_BLOB silent
#include "testmod.h"
