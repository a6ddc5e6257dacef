// The declaration in include/CFuzzDriver.h is defined by libFuzzer (-sanitize=fuzzer).
