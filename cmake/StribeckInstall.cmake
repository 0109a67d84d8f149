# `cmake --install`: the stribeck binary, the public headers of the four
# layers, their libraries (static, or shared with BUILD_SHARED_LIBS), and the CMake package stribeckConfig.cmake (with
# its version file) that exports stribeck::kernels, stribeck::data,
# stribeck::engine, stribeck::workloads and stribeck::identification to find_package(stribeck); the
# pkg-config file stribeck.pc; docs/ and the Slurm job scripts.
include(CMakePackageConfigHelpers)

set(STRIBECK_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/stribeck CACHE STRING
    "Where stribeckConfig.cmake is installed, relative to the prefix")

install(TARGETS stribeck RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

set(_stribeck_libs stribeck_kernels stribeck_data stribeck_engine stribeck_workloads stribeck_identification)
# Shared libstribeck_engine and libstribeck_workloads hold the CUDA launch code itself.
if(TARGET stribeck_kernels_cuda AND NOT BUILD_SHARED_LIBS)
  list(APPEND _stribeck_libs stribeck_kernels_cuda)
endif()
install(TARGETS ${_stribeck_libs} EXPORT stribeckTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The Python module installed alone (`--component python`) loads the shared
# libraries it links: they come with it (python/CMakeLists.txt sets its RPATH).
if(BUILD_SHARED_LIBS AND TARGET stribeck_python)
  install(TARGETS stribeck_data stribeck_engine stribeck_workloads stribeck_identification LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          COMPONENT python NAMELINK_SKIP)
endif()
foreach(layer kernels data engine workloads identification)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${layer}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/NOTICE ${PROJECT_SOURCE_DIR}/README.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The documentation the man page and README point to, and the Slurm job
# scripts (docs/sweep.md, "Clusters (Slurm)").
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/slurm/submit-array.sh ${PROJECT_SOURCE_DIR}/scripts/slurm/shard.sbatch
                 ${PROJECT_SOURCE_DIR}/scripts/slurm/merge.sbatch ${PROJECT_SOURCE_DIR}/scripts/slurm/mpi.sbatch
        DESTINATION ${CMAKE_INSTALL_DATADIR}/stribeck/slurm)

find_package(ZLIB REQUIRED)  # data/ links ZLIB::ZLIB, a target of that directory alone
# stribeck.pc for builds without CMake. Libs is the link closure of the
# installed libraries: static ones bring their private dependencies (and
# theirs: Debian's Ceres is static too), shared ones only what their headers
# expose (HDF5); imported libraries as the files CMake found (Debian's HDF5 is not on the default search path). Every
# library is listed after each one that needs it: a walk that lists a target
# and then its dependencies, every time it meets them, keeps each library's
# last place.
function(_stribeck_pc_closure item out path)
  set(items ${${out}})
  string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" item "${item}")
  if(TARGET ${item})
    get_target_property(aliased ${item} ALIASED_TARGET)
    if(aliased)
      set(item ${aliased})
    endif()
  endif()
  if(NOT TARGET ${item})
    if(item MATCHES "::")
      message(WARNING "stribeck.pc: ${item} is no target in this directory; its libraries are missing from Libs")
    elseif(item MATCHES "^[A-Za-z0-9_.+]+$")
      set(item -l${item})  # a bare library name (rt)
    endif()
    list(APPEND items ${item})  # a file or a flag
  elseif(NOT item IN_LIST path)  # not through a cycle
    get_target_property(type ${item} TYPE)
    get_target_property(imported ${item} IMPORTED)
    if(NOT imported AND NOT type STREQUAL "INTERFACE_LIBRARY")
      list(APPEND items -l${item})
    elseif(imported AND NOT type STREQUAL "INTERFACE_LIBRARY")
      list(APPEND items $<TARGET_FILE:${item}>)
    endif()
    get_target_property(deps ${item} INTERFACE_LINK_LIBRARIES)
    if(deps)
      foreach(d IN LISTS deps)
        _stribeck_pc_closure("${d}" items "${path};${item}")
      endforeach()
    endif()
  endif()
  set(${out} ${items} PARENT_SCOPE)
endfunction()
set(_pc_libs)
foreach(lib ${_stribeck_libs})
  _stribeck_pc_closure(${lib} _pc_libs "")
endforeach()
list(REVERSE _pc_libs)
list(REMOVE_DUPLICATES _pc_libs)
list(REVERSE _pc_libs)
list(JOIN _pc_libs " " STRIBECK_PC_LIBS)
list(TRANSFORM HDF5_C_INCLUDE_DIRS PREPEND -I OUTPUT_VARIABLE _pc_cflags)  # data's public headers include hdf5.h
list(JOIN _pc_cflags " " STRIBECK_PC_CFLAGS)
# ${pcfiledir} up to the prefix, so an installed tree can be moved.
file(RELATIVE_PATH STRIBECK_PC_PREFIX_FROM_PCDIR /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
configure_file(${PROJECT_SOURCE_DIR}/cmake/stribeck.pc.in ${PROJECT_BINARY_DIR}/cmake/stribeck.pc.genex @ONLY)
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/cmake/stribeck.pc INPUT ${PROJECT_BINARY_DIR}/cmake/stribeck.pc.genex)
install(FILES ${PROJECT_BINARY_DIR}/cmake/stribeck.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(EXPORT stribeckTargets NAMESPACE stribeck:: FILE stribeckTargets.cmake
        DESTINATION ${STRIBECK_INSTALL_CMAKEDIR})

# What the config file must find again: static libraries' private
# dependencies are link dependencies of every consumer; shared libraries
# need only HDF5, given as this build found it (no FindHDF5: it probes the C
# compiler, which a C++ consumer need not enable).
set(STRIBECK_CONFIG_SHARED OFF)
if(BUILD_SHARED_LIBS)
  set(STRIBECK_CONFIG_SHARED ON)
  get_target_property(STRIBECK_CONFIG_HDF5_INCLUDE_DIRS hdf5::hdf5 INTERFACE_INCLUDE_DIRECTORIES)
  get_target_property(STRIBECK_CONFIG_HDF5_LIBRARY hdf5::hdf5 IMPORTED_LOCATION)
  if(NOT STRIBECK_CONFIG_HDF5_INCLUDE_DIRS OR NOT STRIBECK_CONFIG_HDF5_LIBRARY)
    message(FATAL_ERROR "stribeckConfig.cmake: hdf5::hdf5 has no include directories or library file")
  endif()
endif()
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
