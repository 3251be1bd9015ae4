import CVips
import Foundation
import Synchronization

/// Starts libvips once per process and applies thumbgen's process-wide policy to it.
///
/// The policy: only the loaders named in `enabledLoaders` can open a file (libvips otherwise
/// falls through to ImageMagick, PDF, SVG and scientific formats, a large attack surface);
/// libvips' operation cache is off (thumbgen never repeats an operation, and the cache would
/// keep images alive); each image uses `threadsPerImage` worker threads, because on small
/// machines parallelism across images beats many threads on one image. liborc's vector code
/// stays on (about 3% of the CPU time), but its graphs are built and freed under
/// `VipsGraphLock`, because liborc is not safe with many images in flight
/// (`THUMBGEN_NO_VECTOR` switches it off).
public enum VipsRuntime {
    /// The loader classes that stay enabled; every other `VipsForeignLoad` is blocked.
    public static let enabledLoaders = [
        "VipsForeignLoadJpeg", "VipsForeignLoadPng", "VipsForeignLoadWebp",
        "VipsForeignLoadNsgif", "VipsForeignLoadTiff", "VipsForeignLoadHeif",
        "VipsForeignLoadJxl",
    ]

    private static let initialised: Result<Void, ImagingError> = {
        if tg_vips_init(CommandLine.arguments.first ?? "thumbgen") != 0 {
            return .failure(.libvips(operation: "vips_init", message: VipsErrorBuffer.take()))
        }
        vips_cache_set_max(0)
        // liborc's vector code stays on only behind `VipsGraphLock` (see there).
        if !vectorCodeAllowed {
            vips_vector_set_enabled(0)
        }
        if ProcessInfo.processInfo.environment["THUMBGEN_VIPS_WARNINGS"] == nil {
            tg_silence_warnings()
        }
        VipsModules.loadEnabled()
        vips_operation_block_set("VipsForeignLoad", 1)
        for loader in enabledLoaders { vips_operation_block_set(loader, 0) }
        return .success(())
    }()

    /// Loads every libvips module (`VipsModules`), for a loader opted in by name and for
    /// `doctor`'s list of every loader. A block covers only the classes registered when it
    /// was set, so the families the modules bring are blocked here, one by one (blocking all
    /// and unblocking some would, for a moment, block loaders other pipelines are using).
    public static func loadAllModules() throws(ImagingError) {
        try initialised.get()
        moduleLock.withLock { _ in
            VipsModules.loadAll()
            let open = Set(enabledLoaders + extraLoaderNicknames.withLock { $0 }.compactMap(loaderFamily))
            for family in loaderFamilies where !open.contains(family) {
                vips_operation_block_set(family, 1)
            }
        }
    }

    /// The loader families: the classes directly below `VipsForeignLoad`.
    private static var loaderFamilies: [String] {
        var count: guint = 0
        guard let children = g_type_children(g_type_from_name("VipsForeignLoad"), &count) else { return [] }
        defer { g_free(children) }
        return (0..<Int(count)).map { String(cString: g_type_name(children[$0])) }
    }

    /// Serialises loading modules and setting the block.
    private static let moduleLock = Mutex(())

    /// The loaders switched on by `--enable-loader`, on top of `enabledLoaders`, by nickname.
    private static let extraLoaderNicknames = Mutex<[String]>([])

    /// Whether `--enable-loader` switched on a vector loader (`pdfload`, `svgload`). Output keys
    /// made with one say so: such outputs are drawn at the scale they need (`page`, issue 31),
    /// where earlier versions drew them at 72 dpi and resized, and an output cached then must
    /// not be served for one drawn now.
    public static var drawsVectors: Bool {
        extraLoaderNicknames.withLock { $0.contains { $0.hasPrefix("pdfload") || $0.hasPrefix("svgload") } }
    }

    /// Starts libvips if it has not started; safe to call from any thread, any number of times.
    /// `extraLoaders` (libvips nicknames such as `svgload`) are enabled as well, for good.
    public static func start(extraLoaders: [String] = []) throws(ImagingError) {
        try initialised.get()
        if extraLoaders.contains(where: { loaderFamily($0) == nil }) {
            try loadAllModules()
        }
        for nickname in extraLoaders {
            guard let family = loaderFamily(nickname) else {
                throw .libvips(operation: "enable-loader", message: "no loader named \(nickname)")
            }
            extraLoaderNicknames.withLock { nicknames in
                if !nicknames.contains(nickname) { nicknames.append(nickname) }
            }
            vips_operation_block_set(family, 0)
        }
    }

    /// Whether libvips has a loader with this nickname (`svgload`, `jpegload`, ...). With
    /// `loadingModules`, one in a module this process has not loaded (ImageMagick's, poppler's)
    /// counts too: every module is loaded to find it, as `--enable-loader` will load them.
    public static func loaderExists(_ nickname: String, loadingModules: Bool = false) -> Bool {
        guard (try? initialised.get()) != nil else { return false }
        if loaderFamily(nickname) != nil { return true }
        guard loadingModules, (try? loadAllModules()) != nil else { return false }
        return loaderFamily(nickname) != nil
    }

    /// The loader that opens the file at `path`, by nickname, or nil when no enabled loader
    /// does. The built-in formats are named from their magic bytes (`FormatSniffer`); only
    /// loaders opted in with `--enable-loader` run their own sniffers, and only after that.
    /// No blocked loader's code runs.
    static func loader(for path: String) -> String? {
        guard let header = FormatSniffer.header(path: path) else { return nil }
        if let builtIn = FormatSniffer.loader(forHeader: header) {
            return loaderExists(builtIn) ? builtIn : nil
        }
        let extra = extraLoaderNicknames.withLock { $0 }
        return extra.first { tg_loader_is_a($0, path) != 0 }
    }

    /// The base class of a loader's file, buffer and source variants (`svgload` →
    /// `VipsForeignLoadSvg`): unblocking it unblocks them all.
    private static func loaderFamily(_ nickname: String) -> String? {
        let type = vips_type_find("VipsForeignLoad", nickname)
        return type == 0 ? nil : loaderFamily(of: type)
    }

    /// The family of the loader class `type`: its parent class, or the class itself when it
    /// derives from `VipsForeignLoad` directly (a loader with one variant only).
    static func loaderFamily(of type: GType) -> String {
        let parent = g_type_parent(type)
        let parentName = String(cString: g_type_name(parent))
        return parentName == "VipsForeignLoad" ? String(cString: g_type_name(type)) : parentName
    }

    /// Sets how many worker threads libvips gives each image it evaluates.
    public static func setThreadsPerImage(_ count: Int) {
        vips_concurrency_set(Int32(max(1, count)))
    }

    /// The libvips version, as `major.minor.micro` (read once: it is part of every output's
    /// cache key).
    public static let version = "\(vips_version(0)).\(vips_version(1)).\(vips_version(2))"

    /// Whether liborc's vector code may run at all (`THUMBGEN_NO_VECTOR` says no).
    static let vectorCodeAllowed = ProcessInfo.processInfo.environment["THUMBGEN_NO_VECTOR"] == nil

    /// Runs `body`, which builds operations, with liborc's vector code on or off (off whatever
    /// `on` says when `vectorCodeAllowed` is false). An operation fixes its code path when it is
    /// built (measured: a resize built with it off evaluates byte for byte as one that stays
    /// off), and the flag is process-wide, so the caller holds `VipsGraphLock`, under which
    /// every resampler is built.
    static func withVectorCode<T, E: Error>(_ on: Bool, _ body: () throws(E) -> T) throws(E) -> T {
        vips_vector_set_enabled(on && vectorCodeAllowed ? 1 : 0)
        defer { vips_vector_set_enabled(vectorCodeAllowed ? 1 : 0) }
        return try body()
    }

    /// Frees libvips' per-thread buffers; call at the end of work on a pooled thread.
    static func releaseThreadResources() {
        vips_thread_shutdown()
    }
}
