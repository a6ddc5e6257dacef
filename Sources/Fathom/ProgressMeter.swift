import Foundation
import Synchronization

/// A progress line with an ETA for a render in flight: `render` feeds it the fraction done
/// (`RenderControl`'s progress) and prints what it returns. The ETA assumes the rest goes at
/// the average speed so far. Thread-safe; at most one line per `interval` seconds.
package final class ProgressMeter: Sendable {
    private let start: Date
    private let interval: Double
    private let lastLine = Mutex<Date?>(nil)

    /// A meter for a render that started at `start`, giving a line at most every `interval` seconds.
    package init(start: Date = Date(), interval: Double = 0.25) {
        self.start = start
        self.interval = interval
    }

    /// The line to show at `fraction` done (nil: too soon after the last one).
    package func update(_ fraction: Double, now: Date = Date()) -> String? {
        let due = lastLine.withLock { last in
            if let previous = last, now.timeIntervalSince(previous) < interval && fraction < 1 { return false }
            last = now
            return true
        }
        return due ? ProgressMeter.line(fraction: fraction, elapsed: now.timeIntervalSince(start)) : nil
    }

    /// "42%  0:12 elapsed, ETA 0:17": percent done, time so far and the time left at the
    /// average speed so far (no ETA before 1%, when there is nothing to go on).
    package static func line(fraction: Double, elapsed: Double) -> String {
        let f = min(1, max(0, fraction))
        var text = String(format: "%3d%%  %@ elapsed", Int(f * 100), duration(elapsed))
        if f >= 0.01 && f < 1 { text += ", ETA " + duration(elapsed * (1 - f) / f) }
        return text
    }

    /// m:ss, or h:mm:ss from an hour; "-:--" for a time that is not a finite number of seconds
    /// under a million hours (an ETA at a rate that rounds to nothing).
    package static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite && seconds < 3.6e9 else { return "-:--" }
        let s = Int(max(0, seconds).rounded())
        return s >= 3600
            ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}
