import Foundation

/// One pass of a render: a kernel over items 0 ..< count (the field's pixels, or the entries of
/// a subset the kernel maps to pixels), in the form the CPU runs (`tiles`) and, when the kernel
/// has one, the form a GPU backend runs (`device`).
///
/// The CPU form is the kernel itself, wrapped once per pass in a closure that runs one tile:
/// the kernel is a concrete generic type there, so its loop is specialised, and executors see
/// no kernel type (Documentation/Architecture.md, "The executor seam").
struct Pass: Sendable {
    let count: Int
    /// Items per tile on the CPU (a unit of scheduling and progress).
    let tilePixels: Int
    /// Cancellation and progress; nil: the pass is not cancelled midway and reports nothing.
    let control: RenderControl?
    /// Progress runs from this to 1 over the pass (reported through `control`).
    let progressBase: Double
    let tiles: @Sendable (Range<Int>, FieldWriter) -> Void
    let device: DeviceForm?

    init<K: TileKernel>(
        _ kernel: K, count: Int, tilePixels: Int, control: RenderControl? = nil, progressBase: Double = 0,
        device: DeviceForm? = nil
    ) {
        self.count = count
        self.tilePixels = tilePixels
        self.control = control
        self.progressBase = progressBase
        self.device = device
        tiles = { range, writer in kernel.run(range, writer) }
    }
}

/// A pass as a GPU backend runs it: the launch description, and how the engine turns each
/// launch's outcomes into the field and the pass's flags (with the CPU kernel's own code).
struct DeviceForm: Sendable {
    let launch: DeviceLaunch
    /// Writes the pass's items that the host settled before the launch (the interior proof's),
    /// once the launch ran; nil: none.
    var finishOnHost: (@Sendable (_ writer: FieldWriter) -> Void)? = nil
    /// Items `items` of the launch, their outcomes (the launch's outcome type, in order), the
    /// field's writer.
    let finish: @Sendable (_ items: Range<Int>, _ outcomes: UnsafeRawBufferPointer, _ writer: FieldWriter) -> Void

    /// Calls `body` on all cores with each item of `items` and its outcome, an `O` of `outcomes`
    /// (the launch's records, `items.lowerBound`'s first): how a `finish` reads them.
    static func forEachOutcome<O>(
        _: O.Type, _ items: Range<Int>, _ outcomes: UnsafeRawBufferPointer, _ body: @Sendable (Int, O) -> Void
    ) {
        let records = SendablePointer(UnsafeMutablePointer(mutating: outcomes.bindMemory(to: O.self).baseAddress!))
        let first = items.lowerBound
        Parallel.forEachChunk(items.count, threads: Parallel.cores) { range in
            for k in range { body(first + k, records.pointer[k]) }
        }
    }
}

/// Runs passes: the seam between the phases of a render and where its kernels run.
protocol PassExecutor: Sendable {
    /// Runs `pass` into `field`. When the pass's control cancels, the CPU stops taking tiles
    /// and returns (the phases and the renderer check the control after it), a GPU backend
    /// throws `RenderError.cancelled` between launches; GPU backends also throw their errors.
    /// Returns the executor that ran it: itself, or the CPU's tiles where a backend declined it.
    @discardableResult
    func run(_ pass: Pass, into field: inout IterationField) throws -> any PassExecutor
    /// The backend's name in reports: "cpu", or the GPU's device.
    var deviceName: String { get }
    /// What it can do beyond running a pass's tiles on the CPU: what the phases ask about,
    /// never which backend it is.
    var traits: ExecutorTraits { get }
    /// Where the reference orbit's steps may run besides the CPU (the GPU backend's).
    var referenceDevice: (any ReferenceStepDevice)? { get }
    /// The host threads its launches run on (0: a device's), and the pixels a launch keeps in
    /// flight a thread (1: one at a time), for the passes' timings.
    var hostThreads: Int { get }
    var laneWidth: Int { get }
}

/// What an executor can do beyond running tiles on the CPU (`PassExecutor.traits`).
struct ExecutorTraits: OptionSet, Sendable {
    let rawValue: Int

    /// It runs a pass's launch form (`DeviceForm`) where the pass brings one, so passes build
    /// it. A pass with the interior proof runs the proof on the host before its launch
    /// (`PerturbationPass.deviceForm`) and launches the pixels it leaves.
    static let launches = ExecutorTraits(rawValue: 1 << 0)
    /// The orbits and tables it receives stay resident between passes under their names
    /// (`DeviceNames`, `TableIdentity`), so the tables are named.
    static let residentContents = ExecutorTraits(rawValue: 1 << 1)
    /// While its passes run, the host's cores are free: work started beside them (a finer
    /// orbit) costs the passes nothing. (The emulated device runs its kernels on the host's
    /// cores: there the finer orbit competes with them, the same work in another order.)
    static let idleHost = ExecutorTraits(rawValue: 1 << 2)
    /// Its passes cost what their loop steps cost, as the first pass's probe prices them (so
    /// the probe's choice of a coarser first pass holds for it).
    static let stepPricedPasses = ExecutorTraits(rawValue: 1 << 3)
    /// Its launches run on the host's own cores (the CPU's lane form): the CPU's reference
    /// policy holds for it, since it takes the CPU's passes (the interior proof's too, the proof
    /// on the host first) and a pass it declines runs on the CPU's tiles at the CPU's cost.
    static let runsOnHost = ExecutorTraits(rawValue: 1 << 4)

    /// A device of its own (a GPU, or the emulation standing in for one): it launches passes
    /// and is no form of the CPU. The reference policy and the direct path ask this.
    var isDevice: Bool { contains(.launches) && !contains(.runsOnHost) }
}

/// The CPU: a pass's tiles on `threads` threads, taken in `order`.
struct CPUTiles: PassExecutor {
    let threads: Int
    let order: TileOrder

    var deviceName: String { "cpu" }
    var traits: ExecutorTraits { [.stepPricedPasses] }
    var referenceDevice: (any ReferenceStepDevice)? { nil }
    var hostThreads: Int { threads }
    var laneWidth: Int { 1 }

    @discardableResult
    func run(_ pass: Pass, into field: inout IterationField) throws -> any PassExecutor {
        let count = pass.count, tileSize = max(1, pass.tilePixels)
        let tiles = (count + tileSize - 1) / tileSize
        let base = pass.progressBase
        let tiler = pass.tiles
        field.withWriter { writer in
            TileScheduler.run(
                tiles: tiles, threads: threads, control: pass.control,
                tileDone: { tile in (1 - base) * Double(min(tileSize, count - tile * tileSize)) / Double(count) },
                progressBase: base, order: order,
                body: { tile in tiler(tile * tileSize..<min(count, (tile + 1) * tileSize), writer) })
        }
        return self
    }
}

/// A GPU backend (`KernelLauncher`, module FathomGPU): passes with a device form run there,
/// the others (and those the backend declines) on `cpu`.
struct DeviceExecutor: PassExecutor {
    let launcher: any KernelLauncher
    let cpu: CPUTiles

    var deviceName: String { launcher.deviceName }
    /// A GPU's: its host idles while its passes run. A launcher on the host's own cores (the
    /// CPU's lane form) prices its passes by their steps, as the CPU does, and leaves no idle host.
    var traits: ExecutorTraits {
        launcher.runsOnHost
            ? [.launches, .residentContents, .stepPricedPasses, .runsOnHost]
            : [.launches, .residentContents, .idleHost]
    }
    var referenceDevice: (any ReferenceStepDevice)? { launcher.referenceDevice }
    var hostThreads: Int { min(launcher.hostThreads, cpu.threads) }
    var laneWidth: Int { launcher.laneWidth }

    @discardableResult
    func run(_ pass: Pass, into field: inout IterationField) throws -> any PassExecutor {
        guard pass.count > 0 else { return cpu }
        if let form = pass.device {
            let ran = try launcher.run(
                form.launch, threads: cpu.threads, control: pass.control, progressBase: pass.progressBase
            ) {
                items, outcomes in
                field.withWriter { writer in form.finish(items, outcomes, writer) }
            }
            if ran {
                if let finishOnHost = form.finishOnHost { field.withWriter(finishOnHost) }
                return self
            }
        }
        return try cpu.run(pass, into: &field)
    }
}
