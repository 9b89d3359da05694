/* Calls a function of its NEEDED library provider.so: resolvable, so the load must succeed. */
extern int aotrt_test_provided(int);
int aotrt_test_call_provided(int x) { return aotrt_test_provided(x); }
