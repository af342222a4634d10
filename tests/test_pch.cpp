// The translation unit that builds the test suites' shared precompiled header
// (see tests/CMakeLists.txt); it has no code of its own.
