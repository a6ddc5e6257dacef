import Fathom
import Foundation
import FuzzSupport

/// Location files as `fathom info`, `convert` and `render --location` read them: the bytes
/// through `LocationFile.decode` (JSON, or KFR and PNG by their first bytes), then the checks
/// of `CheckLocation`.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzLocation(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    guard let file = try? LocationFile.decode(bytes, path: "fuzz.json") else { return 0 }
    CheckLocation.check(file)
    return 0
}
