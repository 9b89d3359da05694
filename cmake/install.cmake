# Install headers, both libraries, a CMake package (find_package(aotrt) -> aotrt::aotrt) and a
# pkg-config file.
include(CMakePackageConfigHelpers)

install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS aotrt aotrt_static EXPORT aotrtTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT aotrtTargets NAMESPACE aotrt:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/aotrt)
configure_package_config_file(cmake/aotrtConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/aotrtConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/aotrt)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/aotrtConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/aotrtConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/aotrtConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/aotrt)
configure_file(cmake/aotrt.pc.in ${CMAKE_CURRENT_BINARY_DIR}/aotrt.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/aotrt.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
