/* A library that only needs_provider.so depends on: loaded as its NEEDED entry, never globally. */
int aotrt_test_provided(int x) { return x + 1; }
