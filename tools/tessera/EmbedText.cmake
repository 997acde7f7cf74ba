# cmake -DINPUT=<file> -DOUTPUT=<file.cpp> -DSYMBOL=<name> -P EmbedText.cmake
# Writes a C++ file defining `extern const char SYMBOL[]` with INPUT's text,
# so the driver carries configs/default.toml without reading it at run time.
file(READ "${INPUT}" _text)
string(FIND "${_text}" ")tessera_embed\"" _clash)
if(NOT _clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter")
endif()
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by EmbedText.cmake; do not edit.\n"
  "namespace tessera::cli {\n"
  "extern const char ${SYMBOL}[];\n"
  "const char ${SYMBOL}[] = R\"tessera_embed(${_text})tessera_embed\";\n"
  "}  // namespace tessera::cli\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
