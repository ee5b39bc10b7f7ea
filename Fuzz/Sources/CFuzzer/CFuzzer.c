// The declaration in include/CFuzzer.h is all; libFuzzer's runtime defines it.
#include "CFuzzer.h"
