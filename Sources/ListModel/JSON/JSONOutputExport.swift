// ListModel's output functions take an `inout JSONWriter`, so the writer is part of ListModel's
// API: whoever imports ListModel gets it (and the rest of JSONOutput) without a second import.
@_exported import JSONOutput
