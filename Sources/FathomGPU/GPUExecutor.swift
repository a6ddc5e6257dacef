internal import CFathomGPU
import Foundation
import FractalEngine
import Synchronization

/// What went wrong with a GPU backend.
public enum GPUError: Error, CustomStringConvertible, Equatable {
    /// No CUDA driver library on this machine.
    case noDriver(String)
    /// A CUDA or NVRTC call failed (its one-line message).
    case failed(String)

    /// A one-line message: `backend cuda: ...` when there is no driver, `GPU backend: ...` when a
    /// call failed.
    public var description: String {
        switch self {
        case .noDriver(let m): "backend cuda: \(m)"
        case .failed(let m): "GPU backend: \(m)"
        }
    }
}

/// A GPU backend in use: the CUDA device or its CPU emulation, the engine's `KernelLauncher`.
/// Holds device memory for one pass at a time; calls are serialised (one render at a time
/// uses it).
///
/// Unchecked Sendable: the kernels' handles (`functions`, raw CUDA pointers, which the driver
/// lets any thread launch) are fixed at init; every other mutable member (timings, counts,
/// result buffers, resident copies, the orbit device) is read and written under `lock`; and
/// `passLock` makes a whole pass (its launches over the shared result buffers) one thread's.
final class GPUExecutor: KernelLauncher, @unchecked Sendable {
    enum Kind { case cuda, emulated }
    let kind: Kind
    private let lock = NSLock()
    /// Held for a whole pass: passes share the result buffers.
    let passLock = NSLock()
    private let functions: [String: UnsafeMutableRawPointer]
    let deviceName: String
    /// Seconds spent in GPU passes (kernels, downloads, the host's finishing), and the passes
    /// run (each one or more launches), for the report (`counters`, under `lock`, which their
    /// writers hold: renders on other threads read them while a pass runs).
    private var kernelSecondsTotal = 0.0
    private var passCount = 0

    /// The CPU's lane form (Lanes.cpp) for the passes it takes, this many lanes a core; 0: the
    /// emulation's scalar kernels only. Set on emulated executors only.
    let lanes: Int
    /// Pixels in flight a thread: the lanes' width (the passes of z^2 + c), else 1.
    var laneWidth: Int { max(1, lanes) }
    /// The emulation runs on the host's cores (at most the render's threads: `DeviceExecutor`
    /// caps it); CUDA on its device.
    var hostThreads: Int { kind == .emulated ? Parallel.cores : 0 }
    /// The lanes are a form of the CPU; the emulation stands in for the GPU.
    var runsOnHost: Bool { lanes > 0 }

    private init(kind: Kind, deviceName: String, functions: [String: UnsafeMutableRawPointer], laneWidth: Int = 0) {
        self.kind = kind
        self.deviceName = deviceName
        self.functions = functions
        self.lanes = laneWidth
    }

    var counters: LauncherCounters {
        lock.lock()
        defer { lock.unlock() }
        return LauncherCounters(seconds: kernelSecondsTotal, passes: passCount, residentHits: residentHitCount)
    }

    static let kernelNames =
        PerturbationLaunch.Delta.allCases.flatMap {
            ["fathom_perturb_\($0.kernelName)", "fathom_perturb_\($0.kernelName)_multibrot"]
        }
        + ["fathom_direct_double", "fathom_orbit_steps"]

    /// A loaded kernel (CUDA), by name.
    func function(_ name: String) -> UnsafeMutableRawPointer? { functions[name] }

    private var orbitDevice: (any ReferenceStepDevice)?
    /// The reference orbit's steps on this backend: `CUDAOrbitDevice`, or the emulation's.
    var referenceDevice: (any ReferenceStepDevice)? {
        lock.lock()
        defer { lock.unlock() }
        if orbitDevice == nil {
            switch kind {
            case .cuda:
                orbitDevice = function("fathom_orbit_steps").map { CUDAOrbitDevice(executor: self, function: $0) }
            // The lanes are the CPU's: its reference orbit is the CPU's too.
            case .emulated: orbitDevice = lanes > 0 ? nil : EmulatedOrbitDevice()
            }
        }
        return orbitDevice
    }

    static let emulation = GPUExecutor(kind: .emulated, deviceName: "CPU emulation", functions: [:])

    /// The emulation with the CPU's lane form, one executor per width (2, 4, 8).
    private static let laneExecutors = Dictionary(
        uniqueKeysWithValues: LaneWidth.all.map {
            ($0, GPUExecutor(kind: .emulated, deviceName: "CPU lanes, \($0) wide", functions: [:], laneWidth: $0))
        })

    /// One executor per mode (exact or not) for the process: opening the driver and loading
    /// the module happen once.
    private static let shared = SharedExecutors()

    /// The executor for `backend`: nil for the CPU's kernel; for `auto` without a usable GPU
    /// the CPU's lanes or nil (`hostLanes`, the reason in `warning` when a driver was there).
    /// Throws for `cuda` without one.
    static func resolve(_ backend: GPUBackendKind, exact: Bool, warning: inout String?) throws -> GPUExecutor? {
        switch backend {
        case .emulated: return emulation
        case .lanes(let width): return laneExecutors[try width ?? LaneWidth.resolved()]!
        case .cuda: return try shared.executor(exact: exact)
        case .auto:
            do { return try shared.executor(exact: exact) } catch GPUError.noDriver {
                return hostLanes(warning: &warning)
            } catch {
                warning = "\(error); rendering on the CPU"
                return hostLanes(warning: &warning)
            }
        }
    }

    /// What `auto` runs on without a GPU: the CPU's lane form where the CPU has lanes of 4 or 8
    /// (AVX2, AVX-512) or FATHOM_LANES asks for a width, else the CPU's kernel (nil). With 2
    /// lanes (SSE2) the lane form is slower than the CPU's kernel (Benchmarks.md). A
    /// FATHOM_LANES that names no width is a warning here (the CPU's kernel renders), as a
    /// driver that fails is.
    static func hostLanes(warning: inout String?) -> GPUExecutor? {
        do {
            guard let width = try LaneWidth.requested() ?? (LaneWidth.widest >= 4 ? LaneWidth.widest : nil) else {
                return nil
            }
            return laneExecutors[width]!
        } catch {
            warning = [warning, "\(error); rendering on the CPU's kernel"].compactMap { $0 }.joined(separator: "; ")
            return nil
        }
    }

    /// Opens CUDA and loads the kernels, compiled for the device's architecture (cached on
    /// disk, `KernelCache`).
    fileprivate static func openCUDA(exact: Bool) throws -> GPUExecutor {
        var message = [CChar](repeating: 0, count: 512)
        let status = fg_open(&message, Int32(message.count))
        if status == 1 { throw GPUError.noDriver(GPUExecutor.text(message)) }
        if status != 0 { throw GPUError.failed(GPUExecutor.text(message)) }
        var name = [CChar](repeating: 0, count: 256)
        var major: Int32 = 0, minor: Int32 = 0, driverVersion: Int32 = 0
        var memory = 0
        guard fg_device_info(&name, Int32(name.count), &major, &minor, &memory, &driverVersion) == 0 else {
            throw GPUError.failed("the device's properties could not be read")
        }
        let architecture = "sm_\(major)\(minor)"
        var module: UnsafeMutableRawPointer?
        func load(_ image: [UInt8]) throws {
            try image.withUnsafeBytes { bytes in try call { fg_load_module(bytes.baseAddress!, &module, $0, $1) } }
        }
        let (image, cached) = try KernelCache.cubin(
            architecture: architecture, exact: exact, driverVersion: Int(driverVersion))
        do { try load(image) } catch  where cached {
            // A cached file the driver rejects (damaged, or from another toolkit): compile anew.
            try load(
                KernelCache.cubin(
                    architecture: architecture, exact: exact, driverVersion: Int(driverVersion), fresh: true
                ).image)
        }
        var functions: [String: UnsafeMutableRawPointer] = [:]
        for kernel in kernelNames {
            var function: UnsafeMutableRawPointer?
            try call { fg_get_function(module, kernel, &function, $0, $1) }
            functions[kernel] = function!
        }
        return GPUExecutor(
            kind: .cuda, deviceName: "\(GPUExecutor.text(name)) (\(architecture), \(memory >> 30) GiB)",
            functions: functions)
    }

    /// A NUL-terminated C string in `buffer`.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Runs a CFathomGPU call that reports failure through a message buffer.
    static func call(_ body: (UnsafeMutablePointer<CChar>, Int32) -> Int32) throws {
        var message = [CChar](repeating: 0, count: 512)
        let status = message.withUnsafeMutableBufferPointer { body($0.baseAddress!, Int32($0.count)) }
        if status != 0 { throw GPUError.failed(GPUExecutor.text(message)) }
    }

    // MARK: Memory and launches

    /// Memory the kernels read or write: device memory, or host memory under emulation.
    final class Buffer {
        let address: UInt64
        let bytes: Int
        let kind: Kind

        init(bytes: Int, kind: Kind) throws {
            self.bytes = bytes
            self.kind = kind
            switch kind {
            case .cuda:
                var pointer: UInt64 = 0
                try GPUExecutor.call { fg_alloc(bytes, &pointer, $0, $1) }
                address = pointer
            case .emulated:
                address = UInt64(UInt(bitPattern: try GPUExecutor.hostMemory(bytes)))
            }
        }

        deinit {
            switch kind {
            case .cuda: fg_free(address)
            case .emulated: free(UnsafeMutableRawPointer(bitPattern: UInt(address)))
            }
        }

        var pointer: UnsafeRawPointer { UnsafeRawPointer(bitPattern: UInt(address))! }
        var mutablePointer: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: UInt(address))! }

        func upload(_ source: UnsafeRawPointer, bytes count: Int) throws {
            precondition(count <= bytes)
            switch kind {
            case .cuda: try GPUExecutor.call { fg_upload(address, source, count, $0, $1) }
            case .emulated: mutablePointer.copyMemory(from: source, byteCount: count)
            }
        }

        func download(_ destination: UnsafeMutableRawPointer, bytes count: Int) throws {
            precondition(count <= bytes)
            switch kind {
            case .cuda: try GPUExecutor.call { fg_download(destination, address, count, $0, $1) }
            case .emulated: destination.copyMemory(from: pointer, byteCount: count)
            }
        }
    }

    /// Host memory a pass's results are downloaded into: page-locked under CUDA (the copy
    /// runs at the bus's speed, and fresh memory is not faulted in page by page), kept for the
    /// next pass and grown when too small.
    final class HostBuffer {
        let pointer: UnsafeMutableRawPointer
        let bytes: Int
        let kind: Kind

        init(bytes: Int, kind: Kind) throws {
            self.bytes = bytes
            self.kind = kind
            switch kind {
            case .cuda:
                var p: UnsafeMutableRawPointer?
                try GPUExecutor.call { fg_host_alloc(bytes, &p, $0, $1) }
                pointer = p!
            case .emulated:
                pointer = try GPUExecutor.hostMemory(bytes)
            }
        }

        deinit {
            switch kind {
            case .cuda: fg_host_free(pointer)
            case .emulated: free(pointer)
            }
        }
    }

    /// Plain host memory (the emulation's "device" memory and result buffers).
    static func hostMemory(_ bytes: Int) throws -> UnsafeMutableRawPointer {
        guard let p = malloc(Swift.max(1, bytes)) else { throw GPUError.failed("out of host memory") }
        return p
    }

    private var resultsDevice: Buffer?
    private var resultsHost: HostBuffer?

    /// Device and host memory of at least `bytes` for a pass's results (reused between passes;
    /// one pass at a time uses them).
    func resultBuffers(bytes: Int) throws -> (Buffer, HostBuffer) {
        lock.lock()
        defer { lock.unlock() }
        if let d = resultsDevice, let h = resultsHost, d.bytes >= bytes { return (d, h) }
        resultsDevice = nil
        resultsHost = nil
        let d = try Buffer(bytes: bytes, kind: kind), h = try HostBuffer(bytes: bytes, kind: kind)
        resultsDevice = d
        resultsHost = h
        return (d, h)
    }

    /// Device copies kept under their content's name (`DeviceContent`), oldest first.
    private var residents: [(name: DeviceContent, buffer: Buffer)] = []
    /// How many device copies stay resident.
    static let residentLimit = 12
    /// The most bytes the lanes copy for one pass (in this process's memory): an eighth of the
    /// machine's memory. A lane pass whose orbits, tables and deltas need more runs on the CPU's
    /// kernel, which reads them in place.
    static let hostCopyBytes = RenderPlan.physicalMemory / 8
    /// Uploads that a resident copy saved (for the tests and the trace; `counters`, under `lock`).
    private var residentHitCount = 0

    /// `array` on the device: the copy kept under its content's name if there is one, else a
    /// new upload (kept under that name when it has one).
    func resident(_ array: LaunchArray) throws -> Buffer {
        // The lanes' copies live for their pass only (copying again costs milliseconds; kept,
        // they would hold the process's memory after the render).
        guard let name = array.content, lanes == 0 else { return try buffer(array) }
        lock.lock()
        if let k = residents.firstIndex(where: { $0.name == name && $0.buffer.bytes == array.byteCount }) {
            let hit = residents.remove(at: k)
            residents.append(hit)
            residentHitCount += 1
            lock.unlock()
            return hit.buffer
        }
        lock.unlock()
        let uploaded = try buffer(array)
        lock.lock()
        residents.append((name, uploaded))
        if residents.count > GPUExecutor.residentLimit {
            residents.removeFirst(residents.count - GPUExecutor.residentLimit)
        }
        lock.unlock()
        return uploaded
    }

    /// A buffer holding `array`'s bytes.
    func buffer(_ array: LaunchArray) throws -> Buffer {
        let buffer = try Buffer(bytes: array.byteCount, kind: kind)
        try array.withBytes { try buffer.upload($0.baseAddress ?? UnsafeRawPointer(bitPattern: 8)!, bytes: $0.count) }
        return buffer
    }

    /// Items a launch takes at most: the results of one launch are downloaded and finished
    /// before the next, so a pass needs result memory for this many items only. The emulation
    /// takes few, so that the tests' small images run in several launches too.
    var launchItems: Int { kind == .cuda ? 1 << 22 : 1 << 12 }

    /// Runs `kernel` over items 0 ..< count of `parameters` in launches of at most
    /// `launchItems` items, calling `completed` with each launch's items; `emulate` is the
    /// CPU version. Progress runs from `progressBase` to 1 after each launch (passes without a
    /// control, those over a subset, report none, as on the CPU).
    func launch<P: LaunchParameters>(
        _ kernel: String, parameters: P, count: Int,
        emulate: @escaping @Sendable (UnsafeRawPointer, Int, Int) -> Void, threads: Int,
        control: RenderControl?, progressBase: Double, completed: (Range<Int>) throws -> Void
    ) throws {
        lock.lock()
        defer { lock.unlock() }
        let start = DispatchTime.now().uptimeNanoseconds
        defer { kernelSecondsTotal += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        passCount += 1
        let chunk = launchItems
        var first = 0
        while first < count {
            if control?.isCancelled == true { throw RenderError.cancelled }
            let end = Swift.min(count, first + chunk)
            var p = parameters
            p.first = Int64(first)
            switch kind {
            case .cuda:
                let blockThreads = 128
                let blocks = (end - first + blockThreads - 1) / blockThreads
                let function = functions[kernel]!
                try withUnsafeMutablePointer(to: &p) { pointer in
                    try GPUExecutor.call { fg_launch(function, UInt32(blocks), UInt32(blockThreads), pointer, $0, $1) }
                }
            case .emulated:
                let items = end - first, base = first
                withUnsafeMutablePointer(to: &p) { pointer in
                    // Read only by the pieces; untyped, so that the pieces capture no metatype.
                    let shared = ParameterAddress(pointer: UnsafeRawPointer(pointer))
                    let chunks = Swift.min(items, Parallel.cores * 8)
                    Parallel.forEachChunk(items, chunks: chunks, threads: threads) { range in
                        emulate(shared.pointer, base + range.lowerBound, base + range.upperBound)
                    }
                }
            }
            try completed(first..<end)
            control?.report(progressBase + (1 - progressBase) * Double(end) / Double(count))
            first = end
        }
    }
}

/// The address of a launch's parameters, shared read-only by the emulation's pieces.
struct ParameterAddress: @unchecked Sendable {
    let pointer: UnsafeRawPointer
}

/// A kernel's by-value parameter: the first item of the launch is set per launch. The
/// pointers inside are device addresses (or the emulation's buffers), read only by kernels.
protocol LaunchParameters {
    var first: Int64 { get set }
}

// Internal conformances only: a public one (Sendable, say) on the C structs would be public API.
extension FKPerturbParams: LaunchParameters {}
extension FKDirectParams: LaunchParameters {}

/// The process's CUDA executors, opened on first use; a failure is remembered.
private final class SharedExecutors: Sendable {
    private let executors = Mutex<[Bool: Result<GPUExecutor, any Error>]>([:])

    func executor(exact: Bool) throws -> GPUExecutor {
        try executors.withLock { executors in
            if let known = executors[exact] { return known }
            let result = Result { try GPUExecutor.openCUDA(exact: exact) }
            executors[exact] = result
            return result
        }.get()
    }
}

/// Compiled kernels on disk: one CUBIN per (source, architecture, exactness, driver version),
/// under $FATHOM_CUDA_CACHE, else $XDG_CACHE_HOME/fathom/cuda, else ~/.cache/fathom/cuda.
/// A cache that cannot be written only costs a compile per process.
enum KernelCache {
    /// NVRTC's options; `FATHOM_NVRTC_OPTIONS` (space-separated, e.g. `-DFK_EACH_UNROLL=4`)
    /// appends options for kernel experiments (they enter the cache key).
    static func options(architecture: String, exact: Bool) -> [String] {
        let extra = ProcessInfo.processInfo.environment["FATHOM_NVRTC_OPTIONS"]?.split(separator: " ").map(String.init)
        return [
            "--gpu-architecture=\(architecture)", "--std=c++17", "-default-device",
            "--fmad=\(exact ? "false" : "true")",
        ]
            + (extra ?? [])
    }

    static var folder: String {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["FATHOM_CUDA_CACHE"], !path.isEmpty { return path }
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty { return xdg + "/fathom/cuda" }
        return (environment["HOME"] ?? NSTemporaryDirectory()) + "/.cache/fathom/cuda"
    }

    /// The file name: FNV-1a over the source and options, and the driver's CUDA version (a
    /// cache stays valid without NVRTC, which only a compile needs).
    static func key(architecture: String, exact: Bool, driverVersion: Int) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (KernelSource.text + options(architecture: architecture, exact: exact).joined(separator: " ")).utf8
        {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return "fathom-\(architecture)-\(exact ? "exact" : "fmad")-\(String(hash, radix: 16))-cuda\(driverVersion)"
    }

    /// The kernels' CUBIN, from the cache (`cached`) unless `fresh`, else compiled and stored.
    static func cubin(architecture: String, exact: Bool, driverVersion: Int, fresh: Bool = false) throws -> (
        image: [UInt8], cached: Bool
    ) {
        let path = folder + "/" + key(architecture: architecture, exact: exact, driverVersion: driverVersion) + ".cubin"
        if !fresh, let data = FileManager.default.contents(atPath: path), !data.isEmpty { return ([UInt8](data), true) }
        let options = options(architecture: architecture, exact: exact)
        var image: UnsafeMutableRawPointer?
        var size = 0
        try withCStrings(options) { pointers in
            try GPUExecutor.call {
                fg_compile(
                    KernelSource.text, "fathom_kernels.cu", pointers, Int32(options.count), &image, &size, $0, $1)
            }
        }
        defer { fg_free_image(image) }
        let bytes = [UInt8](UnsafeRawBufferPointer(start: image, count: size))
        // Written whole then renamed: a reader never sees half a file.
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let temporary = path + ".\(ProcessInfo.processInfo.processIdentifier).tmp"
        if FileManager.default.createFile(atPath: temporary, contents: Data(bytes)) {
            if rename(temporary, path) != 0 { unlink(temporary) }
        }
        return (bytes, false)
    }

    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) throws -> R)
        rethrows -> R
    {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer<CChar>($0) }
        return try pointers.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }
}

/// The backends FathomGPU provides.
enum GPUBackendKind {
    case auto, cuda, emulated
    /// The lane form at this width (nil: `LaneWidth.resolved()`).
    case lanes(Int?)
}

/// How many pixels the CPU's lane form keeps in flight a core (Lanes.cpp): the widest this CPU
/// runs natively (8 with AVX-512, 4 with AVX2, else 2), or FATHOM_LANES's 2, 4 or 8.
enum LaneWidth {
    static let all = [2, 4, 8]

    /// FATHOM_LANES where set (an error unless 2, 4 or 8), else the CPU's widest.
    static func resolved() throws -> Int { try requested() ?? widest }

    /// FATHOM_LANES's width (an error unless 2, 4 or 8); nil where it is not set.
    static func requested() throws -> Int? {
        guard let text = ProcessInfo.processInfo.environment["FATHOM_LANES"] else { return nil }
        guard let width = Int(text), all.contains(width) else {
            throw GPUError.failed("FATHOM_LANES must be 2, 4 or 8, not '\(text)'")
        }
        return width
    }

    /// The widest lanes this CPU runs natively.
    static let widest = Int(fg_lanes_widest())
}

extension ComputeBackend {
    /// CUDA when a driver and a GPU are there, else the CPU (with a warning when a driver is
    /// there but fails, or when the GPU fails mid-render): its lane form (`lanes`, the CPU
    /// kernel's bytes) where the CPU has AVX2 or AVX-512, else its kernel (`cpu`).
    public static let auto = ComputeBackend(name: "auto", fallsBackToCPU: true) { exact, warning in
        try GPUExecutor.resolve(.auto, exact: exact, warning: &warning)
    }
    /// The CUDA kernels on GPU 0; `GPUError` when CUDA cannot be used.
    public static let cuda = ComputeBackend(name: "cuda", fallsBackToCPU: false) { exact, warning in
        try GPUExecutor.resolve(.cuda, exact: exact, warning: &warning)
    }
    /// The CUDA kernels' source compiled for the CPU and run there: what the tests compare with
    /// the CPU kernels where there is no GPU. Slow; not for images.
    public static let emulated = ComputeBackend(name: "emulated", fallsBackToCPU: false) { exact, warning in
        try GPUExecutor.resolve(.emulated, exact: exact, warning: &warning)
    }

    /// The CPU's lane form of the perturbation kernel (several pixels a core in SIMD lanes,
    /// each pixel's record equal to the CPU kernel's) for the passes it takes (Double and
    /// FloatExp deltas, z^2 + c, a decoded orbit), the CPU's kernel for the others: the CPU's
    /// bytes. The widest lanes the CPU runs, or FATHOM_LANES's 2, 4 or 8, on at most the
    /// render's threads; what `auto` runs without a GPU on AVX2 or AVX-512. About 20% faster
    /// than `cpu` on Double views and 1.35-1.7 times on FloatExp views
    /// (Documentation/Benchmarks.md, "The lane form, third version", "FloatExp in lanes").
    public static let lanes = ComputeBackend(name: "lanes", fallsBackToCPU: false) { exact, warning in
        try GPUExecutor.resolve(.lanes(nil), exact: exact, warning: &warning)
    }

    /// The lane form at `width` (2, 4 or 8) lanes, whatever the CPU (the tests run each).
    package static func lanes(width: Int) -> ComputeBackend {
        ComputeBackend(name: "lanes", fallsBackToCPU: false) { exact, warning in
            try GPUExecutor.resolve(.lanes(width), exact: exact, warning: &warning)
        }
    }

    /// The widest lanes this CPU runs natively (8 with AVX-512, 4 with AVX2, else 2).
    package static var widestLanes: Int { LaneWidth.widest }

    /// Every backend Fathom offers, in the order the help lists them.
    public static let all: [ComputeBackend] = [.auto, .cpu, .cuda, .emulated, .lanes]

    /// The backend called `name` (`ComputeBackend.name`), nil for none.
    public init?(named name: String) {
        guard let backend = ComputeBackend.all.first(where: { $0.name == name }) else { return nil }
        self = backend
    }

    /// The CUDA C++ source of the GPU kernels (compiled by NVRTC at run time).
    package static var kernelSource: String { KernelSource.text }
}

extension GPUError: DeviceFailure {}

extension GPUError: LocalizedError {
    /// The one-line message (`description`), so that `localizedDescription` reads it too.
    public var errorDescription: String? { description }
}
