// The translation unit the shared precompiled header (CMakeLists.txt,
// ibsm_core_pch) is built with; it has no code of its own.
