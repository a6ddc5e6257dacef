import Foundation
import Synchronization

/// Progress reporting and cancellation for a render in flight. Thread-safe (checked Sendable).
///
/// Progress is an estimate of the fraction of the work done: it starts at 0, never goes down,
/// and is 1 when the render returns. A render runs several passes (a reference orbit, a first
/// pass, passes that settle pixels at risk) whose sizes are not known in advance: the reference
/// takes the first tenth, and each pass moves the estimate from where it is most of the way
/// (`passShare`) toward 1, so a later pass never sends it back.
public final class RenderControl: Sendable {
    /// Set once by `cancel()`; never tied to `progress`, so the closure (or another thread
    /// while it runs) may call `cancel()` and `isCancelled`.
    private let cancelled = Atomic<Bool>(false)
    /// The estimate shown so far, where the current pass started, and the pass's last fraction.
    private let state = Mutex((shown: 0.0, base: 0.0, last: 0.0))
    /// One progress call at a time.
    private let progressTurn = Mutex(())
    private let progress: (@Sendable (RenderControl, Double) -> Void)?
    /// A part of another control's run (a frame of a sequence): its progress maps into
    /// `span` of the parent's, and cancelling the parent cancels it.
    private let parent: (control: RenderControl, span: ClosedRange<Double>)?

    /// The share of what is left that one pass's progress covers.
    public static let passShare = 0.95

    /// `progress` is called with the estimate (0...1, never decreasing) as the work goes on,
    /// from the rendering threads, one call at a time; it may cancel the render.
    public init(progress: (@Sendable (Double) -> Void)? = nil) {
        if let progress {
            self.progress = { @Sendable (_: RenderControl, fraction: Double) in progress(fraction) }
        } else {
            self.progress = nil
        }
        parent = nil
    }

    /// `progress` receives the control itself with each estimate, so that it can cancel the
    /// render it reports on.
    public init(progress: @escaping @Sendable (RenderControl, Double) -> Void) {
        self.progress = progress
        parent = nil
    }

    private init(parent: RenderControl, span: ClosedRange<Double>) {
        progress = nil
        self.parent = (parent, span)
    }

    /// A control for a part of this one's work (one frame of a sequence, one band of a map):
    /// its progress from 0 to 1 shows as this control's from `span.lowerBound` to
    /// `span.upperBound` (clamped to 0...1), and it is cancelled when this control is.
    public func part(_ span: ClosedRange<Double>) -> RenderControl {
        let lower = Swift.min(1, Swift.max(0, span.lowerBound.isNaN ? 0 : span.lowerBound))
        let upper = Swift.min(1, Swift.max(lower, span.upperBound.isNaN ? lower : span.upperBound))
        return RenderControl(parent: self, span: lower...upper)
    }

    /// Asks the render to stop; it throws `RenderError.cancelled` after the tiles in flight.
    public func cancel() {
        cancelled.store(true, ordering: .releasing)
    }

    /// Whether `cancel()` has been called, on this control or the one it is a part of.
    public var isCancelled: Bool {
        cancelled.load(ordering: .acquiring) || (parent?.control.isCancelled ?? false)
    }

    /// The estimate shown so far (0...1).
    public var fractionDone: Double { state.withLock { $0.shown } }

    /// Progress of a reference orbit: reported as the first 10% of the render.
    func reportReference(_ fraction: Double) { show(0.1 * Swift.min(1, Swift.max(0, fraction))) }

    /// Progress of a pass (0...1 of its pixels), for the passes and the backends that run them.
    /// A fraction below the last one starts a new pass: it moves the estimate on from where it
    /// is, by `passShare` of what is left at the pass's end.
    public func report(_ fraction: Double) {
        guard fraction.isFinite else { return }
        let f = Swift.min(1, Swift.max(0, fraction))
        let value: Double = state.withLock { s in
            if f < s.last {
                s.base = s.shown
            }
            s.last = f
            return s.base + (1 - s.base) * Self.passShare * f
        }
        show(value)
    }

    /// The work is done: the estimate is 1. The renderer calls it when a render returns.
    public func finish() { show(1) }

    /// Shows `value` if it is above what was shown.
    private func show(_ value: Double) {
        let raised: Bool = state.withLock { s in
            guard value > s.shown else { return false }
            s.shown = value
            return true
        }
        guard raised else { return }
        if let parent {
            let (control, span) = parent
            control.show(span.lowerBound + (span.upperBound - span.lowerBound) * value)
        } else if let progress {
            progressTurn.withLock { _ in progress(self, state.withLock { $0.shown }) }
        }
    }
}

/// Why a render did not produce a field.
public enum RenderError: Error, Equatable, CustomStringConvertible {
    /// The render was cancelled through its `RenderControl`.
    case cancelled
    /// The view needs more bits below the pixel spacing than direct iteration carries, and
    /// the family has no perturbation formula (Newton).
    case needsPerturbation(requiredBits: Int, availableBits: Int)
    /// The perturbation path was asked for a family that has no perturbation formula.
    case noPerturbationFormula(family: String)
    /// A reference orbit file was asked for, but the view renders on a direct path.
    case noReferenceOrbit(path: String)
    /// The reference orbit would outgrow the memory (`steps` steps of
    /// `RenderPlan.bytesPerReferenceStep`, more than `memory` bytes).
    case referenceTooLarge(steps: Int, memory: Int)
    /// A reference orbit lies `pixels` pixels from the view's center: too far for deltas to
    /// resolve the pixels (no placement of Fathom's does; every origin is checked the same way).
    case referenceTooFar(pixels: Double)
    /// A reference orbit file was given for a view that renders on a direct path (`path`),
    /// which has no use for it: refused rather than ignored.
    case referenceNotUsed(path: String)
    /// A reference orbit's device broke its contract (a step near |Z| = 2 without its escape
    /// test): an internal error, reported rather than trusted.
    case deviceOrbit(String)
    /// A setting outside what the engine takes (`RenderSettings.validate()`): `name` is the
    /// setting's field, `reason` the range it must lie in.
    case invalidSetting(name: String, reason: String)

    /// The error in one line for the user, with what to change where something can be.
    public var description: String {
        switch self {
        case .cancelled:
            "render cancelled"
        case .noPerturbationFormula(let family):
            "path: the \(family) family has no perturbation formula: render it with path double or double-double"
        case .noReferenceOrbit(let path):
            "save-reference: this view renders on the \(path) path, which takes no reference orbit"
        case .referenceTooLarge(let steps, let memory):
            "the reference orbit would pass \(steps) steps, more than this machine's \(memory >> 20) MiB of memory holds with its BLA table: lower the iteration limit"
        case .referenceTooFar(let pixels):
            "the reference orbit lies \(String(format: "%.3g", pixels)) pixels from the view's center: its deltas could not tell the pixels apart"
        case .referenceNotUsed(let path):
            "load-reference: this view renders on the \(path) path, which takes no reference orbit"
        case .deviceOrbit(let what):
            "the GPU's reference orbit: \(what)"
        case .invalidSetting(let name, let reason):
            "\(name): \(reason)"
        case .needsPerturbation(let required, let available):
            "this view needs \(required) bits (pixel spacing plus guard bits) but direct double-double iteration carries \(available), and Newton fractals have no perturbation formula"
        }
    }
}

extension RenderError: LocalizedError {
    /// The one-line message (`description`), so that `localizedDescription` reads it too.
    public var errorDescription: String? { description }
}
