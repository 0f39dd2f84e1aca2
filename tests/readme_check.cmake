# The README's usage example must be examples/scan_example.cu, line for line
# (the build compiles that file, so the README cannot show code that does not build).
file(READ ${SOURCE_DIR}/README.md readme)
file(READ ${SOURCE_DIR}/examples/scan_example.cu example)
string(FIND "${readme}" "${example}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md does not contain examples/scan_example.cu verbatim")
endif()
