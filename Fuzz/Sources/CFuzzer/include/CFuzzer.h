#ifndef C_FUZZER_H
#define C_FUZZER_H
#include <stddef.h>
#include <stdint.h>

// libFuzzer's entry point for a program with a main of its own (SwiftPM gives every
// executable one): runs the fuzzing loop with `argv`'s flags, calling `callback` per input.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
