"""The package's version; it must equal the loaded libaotrt.so's (AOTRTGetVersion), checked at import.
A test compares it with the version CMake's project() sets for the library."""
__version__ = "0.1.0"
