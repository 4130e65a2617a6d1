#include <ksim/test.h>
KSIM_TEST(placeholder) {}
