/* The only member of the empty libomp.a that weft-cc links instead of LLVM's OpenMP runtime
   (src/CMakeLists.txt): weft's runtime defines the OpenMP entry points. */
const char weft_openmp_placeholder[] = "weft models OpenMP in its runtime";
