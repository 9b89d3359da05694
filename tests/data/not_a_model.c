/* A shared library without __tvm_dev_mblob: loads as a plain `library` module. */
int aotrt_test_plain_function(void) { return 42; }
