import Fathom
import Foundation

/// The progress bar with its ETA that a command shows on standard error when that is a terminal
/// (and not `--quiet`): one line, rewritten in place, and wiped when the command ends.
struct TerminalProgress: Sendable {
    let shown: Bool
    private let meter = ProgressMeter()

    init(quiet: Bool) { shown = !quiet && isatty(2) != 0 }

    /// Shows `fraction` (0...1) done, when the meter has a new line for it.
    func update(_ fraction: Double) {
        guard shown, let line = meter.update(fraction) else { return }
        FileHandle.standardError.write(Data(("\r" + line + "   ").utf8))
    }

    /// Wipes the line.
    func clear() {
        guard shown else { return }
        FileHandle.standardError.write(Data(("\r" + String(repeating: " ", count: 48) + "\r").utf8))
    }
}
