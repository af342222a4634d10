# Install rules and the Debian package (CPack's DEB generator):
#   cmake --build build --target package    (or scripts/package.sh: a release build)
# CPack rather than a debian/ directory: it packages the build tree CMake
# already made (no second build through dpkg-buildpackage, which CI has no
# time for), and needs nothing beyond cmake and dpkg-dev (dpkg-shlibdeps for
# the Depends), both already on a fresh CI machine; debhelper would add its
# own package and a debian/ tree to keep in step with the CMake rules.
include(GNUInstallDirs)

install(TARGETS ibsm RUNTIME DESTINATION ${CMAKE_INSTALL_SBINDIR})

# Debian wants man pages compressed (policy 12.1), reproducibly (-n).
set(IBSM_MAN_GZ ${CMAKE_BINARY_DIR}/ibsm.8.gz)
add_custom_command(OUTPUT ${IBSM_MAN_GZ}
                   COMMAND gzip -9nc ${PROJECT_SOURCE_DIR}/doc/ibsm.8 > ${IBSM_MAN_GZ}
                   DEPENDS ${PROJECT_SOURCE_DIR}/doc/ibsm.8 VERBATIM)
add_custom_target(ibsm_man ALL DEPENDS ${IBSM_MAN_GZ})
install(FILES ${IBSM_MAN_GZ} DESTINATION ${CMAKE_INSTALL_MANDIR}/man8)

# Units where the distribution keeps packaged ones (Debian 12:
# /lib/systemd/system, systemd.pc's systemdsystemunitdir), and the config
# (a conffile).
find_package(PkgConfig QUIET)
pkg_get_variable(IBSM_SYSTEMD_UNIT_DIR systemd systemdsystemunitdir)
if(NOT IBSM_SYSTEMD_UNIT_DIR)
  set(IBSM_SYSTEMD_UNIT_DIR /lib/systemd/system)
endif()
install(FILES conf/systemd/ibsm.service conf/systemd/ibsm@.service DESTINATION ${IBSM_SYSTEMD_UNIT_DIR})
install(FILES conf/ibsm.conf DESTINATION /etc/ibsm)
install(FILES conf/partitions.conf README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ibsm)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_CONTACT "ibsm developers <ibsm@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "InfiniBand subnet manager")
# The long description; CPack puts the summary above it and indents it.
set(CPACK_PACKAGE_DESCRIPTION "ibsm discovers an InfiniBand fabric, assigns LIDs, routes and programs the
switches, brings the ports up, serves Subnet Administration and fails over
between master and standby SMs. It reads OpenSM's configuration keys and
partitions.conf, and ships systemd units (ibsm.service, ibsm@.service).")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Depends from the binary's shared libraries (dpkg-shlibdeps).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The kernel modules and udev rules that make the HCAs usable.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS rdma-core)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/conf/debian/conffiles ${PROJECT_SOURCE_DIR}/conf/debian/postinst
    ${PROJECT_SOURCE_DIR}/conf/debian/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
# /etc/ibsm is absolute on purpose: a conffile outside the /usr prefix.
set(CPACK_WARN_ON_ABSOLUTE_INSTALL_DESTINATION OFF)
include(CPack)
