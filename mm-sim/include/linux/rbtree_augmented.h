/* mm-sim: the kernel's own header, forwarded by path. */
#include <include/linux/rbtree_augmented.h>
