# `cmake --install`: the stribeck binary, the public headers of the four
# layers, their libraries, and the CMake package stribeckConfig.cmake (with
# its version file) that exports stribeck::kernels, stribeck::data,
# stribeck::host and stribeck::identification to find_package(stribeck).
include(CMakePackageConfigHelpers)

set(STRIBECK_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/stribeck CACHE STRING
    "Where stribeckConfig.cmake is installed, relative to the prefix")

install(TARGETS stribeck RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

set(_stribeck_libs stribeck_kernels stribeck_data stribeck_host stribeck_identification)
if(TARGET stribeck_kernels_cuda)
  list(APPEND _stribeck_libs stribeck_kernels_cuda)
endif()
install(TARGETS ${_stribeck_libs} EXPORT stribeckTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
foreach(layer kernels data host identification)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${layer}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/NOTICE ${PROJECT_SOURCE_DIR}/README.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

install(EXPORT stribeckTargets NAMESPACE stribeck:: FILE stribeckTargets.cmake
        DESTINATION ${STRIBECK_INSTALL_CMAKEDIR})

# What the config file must find again: the libraries are static, so their
# private dependencies are link dependencies of every consumer.
set(STRIBECK_CONFIG_MATIO OFF)
if(TARGET PkgConfig::MATIO)
  set(STRIBECK_CONFIG_MATIO ON)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/stribeckConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cmake/stribeckConfig.cmake
                              INSTALL_DESTINATION ${STRIBECK_INSTALL_CMAKEDIR}
                              PATH_VARS CMAKE_INSTALL_BINDIR)
# 0.y: only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/stribeckConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/stribeckConfig.cmake ${PROJECT_BINARY_DIR}/cmake/stribeckConfigVersion.cmake
        DESTINATION ${STRIBECK_INSTALL_CMAKEDIR})
