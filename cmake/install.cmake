# The installable package: `find_package(topoplan)` then link `topoplan::topoplan`
# (the shape of leveldb's and cmake-init's packages; docs/library.md).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TOPOPLAN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/topoplan)
get_property(topoplan_modules GLOBAL PROPERTY TOPOPLAN_MODULES)
# The layers are static libraries, so the consumer links each of them (and the data they embed);
# topoplan_options travels for its link options only (the sanitizer runtime in asan builds).
install(TARGETS topoplan ${topoplan_modules} topoplan_embedded topoplan_options
        EXPORT topoplanTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/topoplan DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT topoplanTargets NAMESPACE topoplan:: DESTINATION ${TOPOPLAN_INSTALL_CMAKEDIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/topoplanConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/topoplanConfig.cmake
                              INSTALL_DESTINATION ${TOPOPLAN_INSTALL_CMAKEDIR})
# 0.x: a minor version may break the API, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/topoplanConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/topoplanConfig.cmake
              ${PROJECT_BINARY_DIR}/topoplanConfigVersion.cmake
        DESTINATION ${TOPOPLAN_INSTALL_CMAKEDIR})
