# The man page (stribeck.1) and the bash completion of the CLI, generated at
# build time from the built binary's own help (scripts/gen-cli-docs.sh), and
# installed by `cmake --install`. The man page needs help2man (Debian:
# help2man, in scripts/install-deps.sh); without it only the completion is
# made, and configure says so.
find_program(STRIBECK_HELP2MAN help2man)
set(_gen ${PROJECT_SOURCE_DIR}/scripts/gen-cli-docs.sh)
set(_completion ${PROJECT_BINARY_DIR}/share/bash-completion/completions/stribeck)
add_custom_command(OUTPUT ${_completion}
                   COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/share/bash-completion/completions
                   COMMAND ${_gen} completion $<TARGET_FILE:stribeck> ${_completion}
                   DEPENDS stribeck ${_gen}
                   COMMENT "Generating the bash completion of stribeck"
                   VERBATIM)
set(_cli_docs ${_completion})
if(STRIBECK_HELP2MAN)
  set(_man ${PROJECT_BINARY_DIR}/share/man/man1/stribeck.1)
  add_custom_command(OUTPUT ${_man}
                     COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/share/man/man1
                     COMMAND ${_gen} man $<TARGET_FILE:stribeck> ${_man}
                     DEPENDS stribeck ${_gen}
                     COMMENT "Generating the man page stribeck.1 (help2man)"
                     VERBATIM)
  list(APPEND _cli_docs ${_man})
  install(FILES ${_man} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  set(STRIBECK_MAN_PAGE ${_man})
else()
  message(STATUS "Stribeck man page: off (help2man not found; apt-get install help2man)")
endif()
add_custom_target(stribeck_cli_docs ALL DEPENDS ${_cli_docs})
install(FILES ${_completion} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
