# streamscan with a bad argument: exit status 2 and a message naming it.
execute_process(COMMAND ${CMD} bench --types int33 RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "expected exit status 2, got ${rc}")
endif()
if(NOT err MATCHES "--types: unknown value 'int33'")
  message(FATAL_ERROR "message does not name the argument: ${err}")
endif()
message(STATUS "exit ${rc}: ${err}")
