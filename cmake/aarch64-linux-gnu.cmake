# Cross toolchain for the embedded profile: Debian's g++-aarch64-linux-gnu,
# with tests run under qemu-user. Header-only third-party code (fmt, Catch2)
# comes from the build host's /usr/include through a folder of symlinks, so
# the rest of the host's headers stay out of the target's include path.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(IBSM_EMBEDDED ON CACHE BOOL "" FORCE)

set(_third_party ${CMAKE_BINARY_DIR}/third-party-include)
file(MAKE_DIRECTORY ${_third_party})
foreach(dir fmt catch2 boost)
  if(EXISTS /usr/include/${dir})
    file(CREATE_LINK /usr/include/${dir} ${_third_party}/${dir} SYMBOLIC)
  endif()
endforeach()
set(IBSM_THIRD_PARTY_INCLUDE ${_third_party} CACHE PATH "" FORCE)
