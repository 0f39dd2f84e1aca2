# Installs the build tree into a scratch prefix, then configures, builds and
# runs tests/consumer against it with find_package(streamscan).
set(prefix ${BUILD_DIR}/install_check/prefix)
set(consumer_build ${BUILD_DIR}/install_check/consumer)
file(REMOVE_RECURSE ${BUILD_DIR}/install_check)
foreach(step
    "${CMAKE_COMMAND};--install;${BUILD_DIR};--prefix;${prefix}"
    "${CMAKE_COMMAND};-S;${SOURCE_DIR}/tests/consumer;-B;${consumer_build};-DCMAKE_PREFIX_PATH=${prefix}"
    "${CMAKE_COMMAND};--build;${consumer_build}"
    "${consumer_build}/consumer")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install check: '${step}' failed (${rc}):\n${out}\n${err}")
  endif()
endforeach()
message(STATUS "install check: find_package(streamscan) works")
