import Fathom
import FuzzSupport

/// Kalles Fraktaler .kfr files: the bytes as text through `KFR.parse`, then the checks of
/// `CheckLocation` (a .kfr becomes a location file, and back).
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzKFR(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let file = try? KFR.parse(text, path: "fuzz.kfr") else { return 0 }
    CheckLocation.check(file)
    return 0
}
