// libaotrt's own copy of std::string's members (linked into the shared library only).
//
// libstdc++ declares basic_string<char> an extern template, so every std::string operation in
// libaotrt calls into libstdc++.so; and libstdc++ calls its own members through its PLT, bound
// lazily. In a new process a model load is often the first to use them: libstdc++'s lazy binding
// (a symbol lookup and a GOT write per function) and its code pages cost about 5 page faults,
// ~12 us of a load on a hit (bench/README.md, issue 25). Instantiated here, the members are local
// to libaotrt (the version script exports none of them, -Bsymbolic-functions binds the calls
// directly) and sit next to the load path's code. The ABI is the same: strings still cross the
// API, allocated and freed by the one operator new and delete.
#include <string>

template class std::basic_string<char>;
