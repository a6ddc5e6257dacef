import Fathom
import Foundation
import Synchronization

/// Every line a command prints goes through this function, which hides the standard library's
/// `print` in this module: once an output of the process is standard output (`-`,
/// /dev/stdout, /dev/fd/1, or a path that names the file standard output writes), the line
/// goes to standard error, so that a report can never be mixed into a PNG, an MP4 or a NumPy
/// file on standard output, whichever command prints it.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let text = items.map { "\($0)" }.joined(separator: separator) + terminator
    if StandardOutputUse.isClaimed {
        FileHandle.standardError.write(Data(text.utf8))
    } else {
        StandardOutput.emit(text)
    }
}

/// Standard output written with write(2), unbuffered: each write's error is seen where it
/// happens (a full disk, /dev/full, a file size limit, a reader that went away), and the first
/// one fails the command (main; Documentation/Reliability.md, "Standard output").
enum StandardOutput {
    private static let state = Mutex<Int32?>(nil)

    /// The errno of the first write to standard output that failed (nil: none did).
    static var firstError: Int32? { state.withLock { $0 } }

    /// Writes `text` whole to descriptor 1; a failure is kept for main, and nothing more is
    /// written after one.
    static func emit(_ text: String) {
        state.withLock { failed in
            guard failed == nil else { return }
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let n = bytes.withUnsafeBufferPointer { write(1, $0.baseAddress, $0.count) }
                if n < 0 {
                    if errno == EINTR { continue }
                    failed = errno
                    return
                }
                bytes = bytes.dropFirst(n)
            }
        }
    }
}
