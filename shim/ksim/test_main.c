// SPDX-License-Identifier: GPL-2.0
#include <ksim/test.h>

int main(int argc, char **argv)
{
	return ksim_test_main(argc, argv);
}
