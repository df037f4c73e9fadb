# Installing weft, and the Debian package (cpack -G DEB). The layout under the prefix P:
#   P/bin/                weft, weft-cc, weft-c++ (the wrappers find lib/weft relative to themselves),
#                         weft-lib (builds libraries with the wrappers beside it)
#   P/lib/weft/           the LLVM pass plugin, the runtime linked into programs (libweft_rt.a),
#                         weft's libomp.a (openmp/), the C API header for programs (include/),
#                         and the archives of the in-process C++ API
#   P/lib/cmake/weft/     the CMake package: weft::weft and weft_add_test (docs/install.md)
#   P/lib/pkgconfig/      weft.pc, for the in-process C++ API
#   P/include/weft/       the public headers
#   P/share/doc/weft/     README and docs; P/share/weft/examples/ the examples
# Nothing installed names the build or source tree (tests/install/install_test.sh checks that).
include(CMakePackageConfigHelpers)

# The installed weft finds libLLVM where the build found it (Debian: /usr/lib/llvm-14/lib).
set_target_properties(weft_cli PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)

install(TARGETS weft_cli RUNTIME DESTINATION bin)
install(PROGRAMS ${PROJECT_BINARY_DIR}/src/instrument/install/weft-cc
                 ${PROJECT_BINARY_DIR}/src/instrument/install/weft-c++
                 ${PROJECT_SOURCE_DIR}/tools/weft-lib
        DESTINATION bin)
install(TARGETS weft_pass LIBRARY DESTINATION lib/weft)
if(TARGET weft_build)
  # Stripped: its symbol table is LLVM's and clang's, and only the dynamic one, which the pass
  # plugin binds to, is needed (78 MB instead of 94).
  install(TARGETS weft_build RUNTIME DESTINATION lib/weft)
  install(CODE "execute_process(COMMAND strip --strip-unneeded \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/weft/weft-build\" COMMAND_ERROR_IS_FATAL ANY)")
endif()
install(TARGETS weft_rt ARCHIVE DESTINATION lib/weft)
install(TARGETS weft_openmp ARCHIVE DESTINATION lib/weft/openmp)
install(FILES ${PROJECT_SOURCE_DIR}/include/weft/weft.h DESTINATION lib/weft/include/weft)

# The in-process API: weft and the layers it links, exported as weft::weft.
install(TARGETS weft weft_runtime weft_explore weft_driver weft_solver weft_trace
        EXPORT weftTargets ARCHIVE DESTINATION lib/weft)
# The public headers, and the headers they include (followed through their #include "weft/..."
# lines): the driver's and the runtime's own headers are not installed.
set(weft_header_queue weft/weft.hpp weft/gtest.hpp weft/value.hpp weft/weft.h)
set(weft_public_headers)
while(weft_header_queue)
  list(POP_FRONT weft_header_queue header)
  if(header IN_LIST weft_public_headers)
    continue()
  endif()
  list(APPEND weft_public_headers ${header})
  # A header that comes to include another must be followed again: configure anew then.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${PROJECT_SOURCE_DIR}/include/${header})
  file(STRINGS ${PROJECT_SOURCE_DIR}/include/${header} includes REGEX "^#include \"weft/")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^#include \"(weft/[^\"]+)\".*" "\\1" included "${line}")
    list(APPEND weft_header_queue ${included})
  endforeach()
endwhile()
foreach(header IN LISTS weft_public_headers)
  get_filename_component(directory ${header} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/include/${header} DESTINATION include/${directory})
endforeach()
install(EXPORT weftTargets NAMESPACE weft:: DESTINATION lib/cmake/weft)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/weftConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/weftConfig.cmake INSTALL_DESTINATION lib/cmake/weft)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/weftConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/weftConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/weftConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/weftAddTest.cmake
        DESTINATION lib/cmake/weft)
configure_file(${PROJECT_SOURCE_DIR}/cmake/weft.pc.in ${PROJECT_BINARY_DIR}/cmake/weft.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake/weft.pc DESTINATION lib/pkgconfig)

install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION share/doc/weft)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION share/doc/weft)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION share/weft/examples)

# cpack -G DEB (from the build tree): a package that installs under /usr. Its dependencies are
# what the installed files use: clang-14 runs the pass (same LLVM), libllvm14 is what the pass
# links, libz3-4 what weft itself links (LLVM's symbolizer, which gives reports their source
# lines, is linked into weft from LLVM's static libraries, with zlib and tinfo, both required).
# libz3-dev and libstdc++-12-dev serve the in-process API's users, who link -lz3 (weft.pc,
# weft::weft); gdb is for `weft replay --gdb`, lld-14 links programs faster (weft-cc uses it when
# it is there), libomp-14-dev for OpenMP programs' omp.h, llvm-14
# for llvm-symbolizer, which AddressSanitizer's own reports use (docs/sanitizers.md).
set(CPACK_PACKAGE_NAME weft)
set(CPACK_PACKAGE_VENDOR "weft developers")
set(CPACK_PACKAGE_CONTACT "weft developers <weft@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "systematic testing of multithreaded C and C++ programs")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "clang-14, libllvm14, libz3-4, libz3-dev, libc6, libstdc++6, libgcc-s1, libstdc++-12-dev")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gdb, lld-14, libomp-14-dev, llvm-14, cmake, pkg-config")
include(CPack)
