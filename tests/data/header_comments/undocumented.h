/* Fixture for check_header_comments.py: one documented declaration and two that are not. */
/*! \brief Documented: must pass. */
TVM_DLL int TVMDocumented(void);
/* ---- a section marker is not documentation ---- */
TVM_DLL int TVMUndocumentedAfterMarker(void);

TVM_DLL int TVMUndocumented(void);
