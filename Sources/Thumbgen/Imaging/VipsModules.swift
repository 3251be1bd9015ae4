import CVips
import Foundation
import Synchronization

/// Which of libvips' modules a process loads.
///
/// A packaged libvips keeps some formats in modules (`vips-modules-8.14/vips-heif.so`,
/// `vips-jxl.so`, `vips-magick.so`, `vips-poppler.so`, `vips-openslide.so`), and `vips_init`
/// opens every one of them: ImageMagick, poppler and OpenSlide are mapped into each thumbgen
/// process and their relocations paid at each start, although thumbgen blocks their loaders.
/// A thumbgen process (`deferLoading()`, first thing in `main`) lets libvips load none and
/// loads only the modules of the loaders it enables: measured with a bare `vips_init` on Debian
/// 12, 0.03 s instead of 0.05 s and 29.6 MB instead of 35.0 MB resident, per process (the
/// parent and each worker). `--enable-loader` and `doctor`, which lists every loader, load the
/// rest on demand.
public enum VipsModules {
    /// The module file each of thumbgen's own module-borne loaders lives in.
    static let enabledLoaderModules = ["heifload": "vips-heif.so", "jxlload": "vips-jxl.so"]

    /// Tells libvips, before it starts, to load no module itself: it looks for them under
    /// `$VIPSHOME`, which is pointed at a folder that does not exist. Left alone when the
    /// user set `VIPSHOME` (a libvips of their own). Call it first thing in `main`, before any
    /// thread starts: it changes the environment.
    public static func deferLoading() {
        guard getenv("VIPSHOME") == nil else { return }
        setenv("VIPSHOME", missingHome, 1)
    }

    /// What `deferLoading` sets `VIPSHOME` to.
    static let missingHome = "/nonexistent/thumbgen-loads-vips-modules-itself"

    /// Where libvips keeps its modules: `vips-modules-MAJOR.MINOR` beside the libvips the
    /// process has mapped (read from `/proc/self/maps`, because `vips_guess_libdir` would
    /// answer from `VIPSHOME`); nil when there is no such folder (a libvips built without
    /// modules).
    static let folder: String? = {
        guard let maps = processMaps else { return nil }
        for line in maps.split(separator: "\n") where line.contains("/libvips.so") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let library = String(line[slash...])
            let folder = (library as NSString).deletingLastPathComponent
                + "/vips-modules-\(vips_version(0)).\(vips_version(1))"
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) && isFolder.boolValue
                ? folder : nil
        }
        return nil
    }()

    /// `/proc/self/maps`, read to its end (its size says 0, so a read by size gets nothing).
    private static var processMaps: String? {
        guard let file = FileHandle(forReadingAtPath: "/proc/self/maps") else { return nil }
        defer { try? file.close() }
        return (try? file.readToEnd()).flatMap { String(data: $0, encoding: .utf8) }
    }

    /// The module files loaded so far by this type.
    private static let loaded = Mutex<Set<String>>([])

    /// Loads the modules of thumbgen's own loaders that libvips has not registered (after
    /// `deferLoading`, all of them).
    static func loadEnabled() {
        for (nickname, file) in enabledLoaderModules.sorted(by: { $0.key < $1.key })
        where vips_type_find("VipsOperation", nickname) == 0 {
            load(file)
        }
    }

    /// Loads every module libvips has: for a loader opted in by name, and for `doctor`'s list.
    public static func loadAll() {
        guard let folder, let files = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for file in files.sorted() where file.hasSuffix(".so") { load(file) }
    }

    /// Loads the module `file` of `folder` once.
    private static func load(_ file: String) {
        guard let folder else { return }
        let isNew = loaded.withLock { $0.insert(file).inserted }
        guard isNew else { return }
        _ = tg_load_module(folder + "/" + file)
    }
}
