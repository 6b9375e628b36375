// SPDX-License-Identifier: GPL-2.0
#define TEST_BLOB bad_blob
#include "testmod.h"
