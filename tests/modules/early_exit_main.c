// SPDX-License-Identifier: GPL-2.0
#define TEST_BLOB early_exit
#include "testmod.h"
