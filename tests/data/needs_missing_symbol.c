/* A library referring to a TVM-style runtime symbol no runtime provides: loading must fail with
 * an error naming it, not crash at the first call. */
extern void* TVMBackendSomethingThatDoesNotExist(int);
void* aotrt_test_call_missing(void) { return TVMBackendSomethingThatDoesNotExist(1); }
