# Install headers, both libraries, a CMake package (find_package(aotrt) -> aotrt::aotrt) and a
# pkg-config file.
include(CMakePackageConfigHelpers)

install(DIRECTORY include/ ${AOTRT_GENERATED_INCLUDE_DIR}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS aotrt aotrt_static EXPORT aotrtTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET aotrt_npy)  # the .npy/.npz helpers (aotrt/npy.h), when tools or tests are built
  install(TARGETS aotrt_npy EXPORT aotrtTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(EXPORT aotrtTargets NAMESPACE aotrt:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/aotrt)
configure_package_config_file(cmake/aotrtConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/aotrtConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/aotrt)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/aotrtConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/aotrtConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/aotrtConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/aotrt)
# From <prefix>/<libdir>/pkgconfig back up to <prefix>, e.g. "../.." for lib/pkgconfig.
file(RELATIVE_PATH AOTRT_PC_PREFIX_FROM_PCFILEDIR /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(cmake/aotrt.pc.in ${CMAKE_CURRENT_BINARY_DIR}/aotrt.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/aotrt.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(TARGET aotrt_npy)  # its static library needs minizip on the link line (Requires: minizip)
  configure_file(cmake/aotrt_npy.pc.in ${CMAKE_CURRENT_BINARY_DIR}/aotrt_npy.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/aotrt_npy.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()

# TVM's runtime library name, for programs and build files written for TVM (README "Moving a C++
# program from TVM's runtime"): -ltvm_runtime (a symbolic link to libaotrt.so), pkg-config
# tvm_runtime, find_package(tvm_runtime) (and the tvm_runtime target of find_package(aotrt)).
install(CODE "file(CREATE_LINK libaotrt.so
  \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/libtvm_runtime.so\" SYMBOLIC)
  message(STATUS \"Installing: \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/libtvm_runtime.so -> libaotrt.so\")")
configure_file(cmake/tvm_runtime.pc.in ${CMAKE_CURRENT_BINARY_DIR}/tvm_runtime.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tvm_runtime.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
configure_file(cmake/tvm_runtimeConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/tvm_runtimeConfig.cmake @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tvm_runtimeConfig.cmake DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tvm_runtime)

# The Python package, into <prefix>/lib/pythonX.Y/dist-packages (where Debian's python3 looks for
# /usr/local installs; elsewhere PYTHONPATH=<that folder> alone imports it), with a small generated
# module telling it where the installed libaotrt.so lies relative to itself.
if(AOTRT_PYTHON)
  execute_process(COMMAND ${AOTRT_PYTHON} -c "import sys; print('lib/python%d.%d/dist-packages' % sys.version_info[:2])"
    OUTPUT_VARIABLE _aotrt_py_dir OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _aotrt_py_rc)
  if(_aotrt_py_rc EQUAL 0)
    set(AOTRT_PYTHON_INSTALL_DIR ${_aotrt_py_dir} CACHE STRING "Where cmake --install puts the Python package, under the prefix")
    file(RELATIVE_PATH AOTRT_PY_LIB_FROM_PACKAGE /prefix/${AOTRT_PYTHON_INSTALL_DIR}/aotrt /prefix/${CMAKE_INSTALL_LIBDIR})
    configure_file(cmake/_install_paths.py.in ${CMAKE_CURRENT_BINARY_DIR}/python/_install_paths.py @ONLY)
    install(DIRECTORY python_stubs/aotrt DESTINATION ${AOTRT_PYTHON_INSTALL_DIR}
      PATTERN "__pycache__" EXCLUDE PATTERN "_install_paths.py" EXCLUDE)
    install(FILES ${CMAKE_CURRENT_BINARY_DIR}/python/_install_paths.py DESTINATION ${AOTRT_PYTHON_INSTALL_DIR}/aotrt)
  endif()
endif()
