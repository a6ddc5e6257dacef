import Foundation
import Synchronization

/// Progress reporting and cancellation for a render in flight. Thread-safe (checked Sendable).
public final class RenderControl: Sendable {
    /// Set once by `cancel()`; never tied to `progress`, so the closure (or another thread
    /// while it runs) may call `cancel()` and `isCancelled`.
    private let cancelled = Atomic<Bool>(false)
    /// One progress call at a time.
    private let progressTurn = Mutex(())
    private let progress: (@Sendable (Double) -> Void)?

    /// `progress` is called with the fraction of pixels done (0...1) after each tile, from
    /// the rendering threads, one call at a time; it may cancel the render.
    public init(progress: (@Sendable (Double) -> Void)? = nil) {
        self.progress = progress
    }

    /// Asks the render to stop; it throws `RenderError.cancelled` after the tiles in flight.
    public func cancel() {
        cancelled.store(true, ordering: .releasing)
    }

    /// Whether `cancel()` has been called.
    public var isCancelled: Bool {
        cancelled.load(ordering: .acquiring)
    }

    /// Progress of a reference orbit: reported as the first 10% of the render.
    func reportReference(_ fraction: Double) { report(0.1 * min(1, fraction)) }

    /// Progress of the render (0...1): for the passes and the backends that run them.
    public func report(_ fraction: Double) {
        guard let progress else { return }
        progressTurn.withLock { _ in progress(fraction) }
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
