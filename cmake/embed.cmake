# Data files (topologies/, models/) are compiled into the binary so topoplan runs from any
# directory. Each data folder calls topoplan_embed(files...) with paths relative to the source
# root; topoplan_generate_embedded() writes one .cpp holding them all.
set_property(GLOBAL PROPERTY TOPOPLAN_EMBED_FILES "")

function(topoplan_embed)
  foreach(f ${ARGN})
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/${f})
    set_property(GLOBAL APPEND PROPERTY TOPOPLAN_EMBED_FILES ${rel})
  endforeach()
endfunction()

function(topoplan_generate_embedded target)
  get_property(files GLOBAL PROPERTY TOPOPLAN_EMBED_FILES)
  set(out ${PROJECT_BINARY_DIR}/generated/embedded_data.cpp)
  set(abs "")
  foreach(f ${files})
    list(APPEND abs ${PROJECT_SOURCE_DIR}/${f})
  endforeach()
  # ';' would split the list in the shell; pass it '|'-separated instead.
  string(REPLACE ";" "|" files_arg "${files}")
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DROOT=${PROJECT_SOURCE_DIR} "-DFILES=${files_arg}"
            -P ${PROJECT_SOURCE_DIR}/cmake/embed_write.cmake
    VERBATIM
    DEPENDS ${abs} ${PROJECT_SOURCE_DIR}/cmake/embed_write.cmake
    COMMENT "Embedding ${CMAKE_PROJECT_NAME} data files")
  # The library must live in the directory that owns the custom command.
  add_library(topoplan_embedded STATIC ${out})
  target_include_directories(topoplan_embedded PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${target} PUBLIC topoplan_embedded)
endfunction()
