//! Every sentence an error can say, as a slug and its parameters.
//!
//! A message is data, not text: the API renders it in English (`english`), the
//! command line in French (`cli::words`), and the web interface can render it in the
//! reader's language. A new message does not compile until each of them handles it.
//! No message holds a server path: parameters are keys, names, limits and addresses
//! the caller gave or may see.

use serde::{Deserialize, Serialize};

use super::counts::{duration, Grammar};
use super::reason::Detail;
use crate::words::{KeysState, PushEnd, StartedBy, Task, Unit};

/// The web's sentences in English group thousands and agree with their counts.
const EN: Grammar = Grammar::English;

/// A message: the variant is its slug, the fields its parameters. Serialised, it is
/// `{"slug": "...", <parameters>}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "slug", rename_all = "snake_case")]
pub enum Msg {
    // The service itself.
    Internal,
    DatabaseTooNew,
    DataLocked,
    LibraryUnavailable,
    Busy,
    Cancelled,
    Overloaded,
    RateLimited,
    // HTTP.
    NoRoute,
    MethodNotAllowed,
    ApiKeyRequired,
    LoginFailed,
    CrossOrigin,
    KeyOutOfScope,
    KeyReadOnly,
    ShopCredentialsRequired,
    KeyNotForShop,
    ViewerReadOnly,
    PayloadTooLarge {
        limit: usize,
    },
    UriTooLong {
        limit: usize,
    },
    HeadersTooLarge {
        limit: usize,
    },
    OneHostHeader,
    BadTarget,
    BodyUnreadable,
    BodyTooSlow,
    AmbiguousLength {
        why: String,
    },
    MissingParameter {
        name: String,
    },
    BadJson {
        expected: String,
    },
    SearchTooLong {
        bytes: usize,
        words: usize,
    },
    BadGameType,
    NoSuchFile,
    NoSuchDownload,
    FileGone,
    // Names.
    NameLength {
        what: String,
        max: usize,
    },
    NameControl {
        what: String,
    },
    NameInvisible {
        what: String,
    },
    // Accounts and keys.
    PasswordTooShort {
        min: usize,
    },
    PasswordTooLong {
        max: usize,
    },
    BadRole,
    AccountExists,
    AlreadySetUp,
    NoAccount {
        name: String,
    },
    SetupCodeNeeded,
    SetupCodeWrong,
    NotSignedIn,
    BadLang,
    AdminOnly,
    NoApiKey {
        id: String,
    },
    // The library.
    NoGame {
        key: String,
    },
    NotTitleId,
    // Consoles' save backups.
    ConsoleCredentialsRequired,
    NoSave,
    BadSaveId,
    NoSaveArchive,
    SaveNotZip,
    SaveUnsafeEntry {
        entry: String,
    },
    NotMultipart,
    SaveRestoreName,
    SaveDiskFull,
    DavTaken,
    DavNoParent,
    DavBody,
    DavBadXml,
    DavBadPath,
    DavIsFolder,
    DavSame,
    DavBadDestination,
    DavRoot,
    DavTooMany {
        max: usize,
    },
    DavTooDeep {
        max: usize,
    },
    DavPropsTooLarge,
    SaveQuota {
        quota: u64,
    },
    FormFieldTooLong {
        max: usize,
    },
    NothingOfTitle {
        id: String,
    },
    /// A file given to decompress that is no `.nsz`/`.xcz`.
    NotCompressed {
        key: String,
    },
    // Platforms.
    BadSlug,
    BadFolder,
    FolderRefused,
    BadExtensions,
    PlatformExists,
    NoPlatform,
    LastPlatform,
    // The trash.
    NoTrashEntry,
    TrashFolderLink,
    TrashEntryVanished,
    TrashEntryLink,
    KeyOccupied,
    LinkOnTheWay,
    // The console and the push.
    NoDevice,
    ConsoleNameColon,
    /// `.` and `..` are no names: in an address they mean a folder.
    ConsoleNameDots,
    ConsoleNameAddress,
    ShopMessage {
        max: usize,
    },
    ConsoleExists {
        name: String,
    },
    NoConsole {
        name: String,
    },
    ConsoleAddressNotIp,
    BadPort,
    OfferAddressNotIp,
    BadConsoleAddress {
        host: String,
    },
    NoRouteToConsole,
    ListenUnreachable {
        listen: String,
        port: u16,
    },
    ConsoleNotWaiting,
    NothingReached {
        address: String,
    },
    NotInPushList {
        key: String,
    },
    // Convert.
    ConvertFailed {
        key: String,
        reason: Detail,
    },
    ConvertTargetExists {
        key: String,
        target: String,
    },
    /// The convert task will not start: the decompressed files need more room than the
    /// library's disk has (originals stay in the trash until purged).
    NoRoomToConvert {
        needed: u64,
        free: u64,
    },
    // Compress.
    CompressFailed {
        key: String,
        reason: Detail,
    },
    CompressTargetExists {
        key: String,
        target: String,
    },
    /// The compressed file does not give back the NCAs its CNMT records (`why`, as
    /// verify says it): the original stays.
    CompressUnverified {
        key: String,
        why: Box<Msg>,
    },
    /// The compress task will not start: the compressed files (the originals waiting
    /// in the trash) and one in flight need more room than the disk has.
    NoRoomToCompress {
        needed: u64,
        free: u64,
    },
    /// Skipped by compress: the file is already a `.nsz` or `.xcz`.
    AlreadyCompressed,
    /// Skipped by compress: not an `.nsp` or `.xci`.
    NotCompressible,
    /// Skipped by compress: the console keys lack this key revision (`0x12`).
    CompressKeyMissing {
        revision: String,
    },
    /// Skipped by compress: `compressed` bytes would save less than `min_gain` percent
    /// of `size`.
    CompressGainTooSmall {
        size: u64,
        compressed: u64,
        min_gain: u32,
    },
    // How tasks ended (stored with each run, shown in the reader's language).
    ScanDone {
        files: u64,
        read: u64,
        unchanged: u64,
        removed: u64,
    },
    /// A scan whose reading identified files with the console keys.
    ScanIdentified {
        files: u64,
        read: u64,
        identified: u64,
    },
    ScanIncomplete {
        files: u64,
        read: u64,
        unchanged: u64,
        kept: u64,
    },
    TaskPartial {
        task: Task,
        failed: u64,
    },
    ConvertDone {
        converted: u64,
        failed: u64,
    },
    CompressDone {
        compressed: u64,
        skipped: u64,
        failed: u64,
        /// Bytes the compressed files save on their originals.
        saved: u64,
    },
    PushEmpty,
    PushDone {
        delivered: u64,
        partial: u64,
        untouched: u64,
        ended: PushEnd,
    },
    TitlesDone {
        files: u64,
        entries: u64,
        renamed: u64,
        icons: Option<(u64, u64)>,
    },
    TitlesUnchanged {
        icons: Option<(u64, u64)>,
    },
    OrganizeDone {
        moved: u64,
        run: i64,
        taken: u64,
        in_place: u64,
        left: u64,
    },
    /// `organize_undo` put back what it could of run `run`.
    OrganizeUndone {
        run: i64,
        moved_back: u64,
        skipped: u64,
    },
    /// A file an undo left where it is, and why.
    OrganizeNotBack {
        why: NotBack,
    },
    /// The run was undone already: nothing of it is left to put back.
    OrganizeRunUndone {
        run: i64,
    },
    DedupeDone {
        superseded: u64,
        duplicates: u64,
        bytes: u64,
    },
    VerifyDone {
        sound: u64,
        damaged: u64,
        unverifiable: u64,
    },
    /// The verify task will not start: without the console keys no CNMT can be read.
    VerifyNeedsKeys,
    /// The compress task will not start: without the console keys nothing decrypts.
    CompressNeedsKeys,
    TaskStopped,
    // Why one file of a task failed.
    FolderUnreadable {
        folder: String,
    },
    PlatformFolderRefused,
    NameNotUtf8,
    FileUnexaminable,
    FileDamaged {
        detail: Detail,
    },
    /// `verify` found an NCA of the file damaged (`detail`: why an NCZ does not
    /// decompress); `more` other NCAs of the file are damaged too.
    NcaDamaged {
        nca: String,
        what: NcaFault,
        detail: Detail,
        more: u32,
    },
    /// `verify` could not check the file; it is neither marked nor cleared. `nca`
    /// names the NCA concerned, or is empty; `detail` is the key revision (such as
    /// `0x12`) of `missing_key`, and why for `malformed`.
    NotVerifiable {
        what: VerifyGap,
        nca: String,
        detail: Detail,
    },
    /// A FIFO, a socket, a device… where a game file should be: `what` is `fifo`,
    /// `socket`, `device`, `folder` or `other` (`library::safe::NotAFile`).
    NotAFile {
        key: String,
        what: String,
    },
    // Starting the service.
    /// A command other than `serve` and `demo-library` was given a data folder that
    /// does not exist (run in the wrong folder): it creates none.
    NoDataFolder {
        folder: String,
    },
    DataFolderPrivate,
    FolderUnusable {
        what: String,
    },
    AtLeastOne,
    TimeoutsAtLeastOne,
    RatesPositive,
    UnknownUser {
        name: String,
    },
    CannotListen {
        address: String,
    },
    // The command line's own.
    TaskInterrupted {
        task: Task,
        done: u64,
        total: u64,
        unit: Unit,
    },
    TaskFailed {
        task: Task,
        message: String,
    },
    /// A command handed to the running service found its slot taken.
    TaskRunning {
        task: Task,
        by: StartedBy,
    },
    /// The service closed a command's connection before starting its task.
    HandoffRefused,
    /// A command's connection to the service ended before the task's result.
    HandoffLost,
    CannotOpen {
        file: String,
    },
    BadTitleFile {
        file: String,
        reason: Detail,
    },
    NotTitleFile {
        file: String,
    },
    /// `id` as the client sent it, cut short (`text::cut`) by whoever builds it.
    NoTitle {
        id: String,
    },
    BadTitleStatus,
    BadRegion,
    BadTitleUrl,
    BadWebhookUrl,
    // `ludotheque health`.
    BadHealthUrl,
    HealthPortZero,
    HealthUnreachable {
        url: String,
    },
    Unhealthy {
        url: String,
        status: u16,
    },
    HealthNotOk {
        url: String,
    },
    WebhookSecretAlone,
    WebhookUrlFile,
    // Notifications (`notify`): setting targets up, then what the messages say.
    NotifyFile,
    BadPublicUrl,
    BadNotifyUrl {
        shown: String,
    },
    NoNotifyTarget,
    NotifyTargetFixed,
    NotifyFailed {
        reason: String,
    },
    NotifySent,
    NotifyTestRunning,
    NoteNewGames {
        count: u64,
        names: String,
    },
    NoteUpdates {
        count: u64,
        names: String,
    },
    NoteTaskEnded {
        task: Task,
        failed: bool,
        message: Box<Msg>,
    },
    NoteDamaged {
        count: u64,
    },
    NoteLibraryOffline,
    NoteSaveBackedUp {
        console: String,
        title: String,
    },
    NoteLowSpace {
        library: bool,
        percent: u64,
        free: u64,
    },
    NoteTest,
    BadOrganizeTemplate,
    NoOrganizeRun,
    BadMissingKind,
    BadMissingFormat,
    TitleSourceDown {
        file: String,
        reason: Detail,
    },
    FileExists {
        file: String,
    },
    CannotCreate {
        file: String,
    },
    BackupFailed {
        file: String,
    },
    PasswordUnreadable {
        reason: String,
    },
    PasswordsDiffer,
    // Administering from the browser: accounts, restore under another name.
    LastAdmin,
    NotOnYourself,
    BadRestoreName {
        ext: String,
    },
    // The user's console keys (prod.keys): never a key's value, only names and lines.
    ConsoleKeysLine {
        line: u64,
        why: KeysLine,
    },
    ConsoleKeysEmpty,
    ConsoleKeysTooLarge {
        limit: u64,
    },
    ConsoleKeysNotWritten,
    ConsoleKeysUnreadable,
    ConsoleKeysLink,
    // The web pages' sentences with values, said in the reader's language
    // (`error::i18n::Lang::msg`); the page words without values are `error::i18n::M`.
    StartedByUser {
        name: String,
    },
    StartedByKey {
        name: String,
    },
    FirstScan {
        done: u64,
        total: u64,
    },
    TimeLeft {
        secs: u64,
    },
    ConvertRoom {
        files: u64,
        needed: u64,
        free: u64,
    },
    KeysNeedRevision {
        files: u64,
        revision: String,
    },
    KeysWrongHeader {
        files: u64,
    },
    KeysSuspect {
        names: String,
    },
    ConfirmPurgeOne {
        name: String,
        bytes: u64,
    },
    ConfirmPurgeConverted {
        files: u64,
        bytes: u64,
    },
    ConfirmEmptyTrash {
        files: u64,
        bytes: u64,
    },
    Freed {
        files: u64,
        bytes: u64,
    },
    ConfirmNewConsolePassword {
        name: String,
    },
    ConfirmRemoveConsole {
        name: String,
    },
    ConfirmTrashSave {
        name: String,
    },
    SavesAdminOnly,
    NameConflict {
        named: String,
        holds: String,
    },
    ConfirmRemovePlatform {
        name: String,
    },
    ConfirmMakeViewer {
        name: String,
    },
    ConfirmRemoveAccount {
        name: String,
    },
    ConfirmRevokeKey {
        name: String,
    },
    /// The tasks panel's question before a convert of the whole library.
    ConvertAllAsk {
        files: u64,
    },
    /// The tasks panel's question before a compress of the whole library.
    CompressAllAsk {
        files: u64,
        bytes: u64,
    },
    CompressEstimate {
        low: u64,
        high: u64,
        bytes: u64,
    },
    CompressSaved {
        saved: u64,
        trash: u64,
    },
    OrganizeUndoAsk {
        run: i64,
        files: u64,
    },
    PlanMore {
        more: u64,
    },
    DedupeKeptNote {
        what: String,
        key: String,
    },
    DedupeAsk {
        files: u64,
        bytes: u64,
    },
    DedupeAskText {
        days: u32,
        bytes: u64,
    },
    OrganizeAsk {
        files: u64,
    },
    ConfirmClearPush {
        files: u64,
        bytes: u64,
    },
    /// Where an empty library's files go: the library folder, by its own name.
    WhereGamesGo {
        folder: String,
    },
    /// Organize's template is set by `--organize-template`.
    TemplateByFlag,
    /// The trash's retention is set by `--trash-retention-days`.
    RetentionByFlag,
    BadRetention,
    /// How many files a task could not handle.
    FilesFailed {
        files: u64,
    },
    /// An upload of title data files: too many, none, no room, and what is known after.
    TooManyTitleFiles {
        max: usize,
    },
    NoTitleFiles,
    TitleDiskFull,
    TitlesKnownNow {
        titles: u64,
    },
    /// The address typed in the listen field is not `IP:PORT`.
    BadListenAddress {
        address: String,
    },
    /// Another program listens on that port.
    ListenInUse {
        address: String,
    },
    /// Where the service listens is set by `--listen` or `LUDOTHEQUE_LISTEN`.
    ListenByFlag,
    /// The service moved: where it listens now.
    ListeningOn {
        address: String,
    },
    /// What the console keys identified in the last scan.
    FilesIdentified {
        files: u64,
    },
    /// Files just added to the push list, and how many it holds now.
    AddedToPush {
        files: u64,
        total: u64,
    },
    ConfirmForgetDevice {
        name: String,
        host: String,
    }, // The shop's default message (`shop`), what an installer shows on connecting.
    ShopDefaultMessage {
        files: u64,
    },
}

/// What the command line prints (`cli`), in its language (`cli::out::lang`): a
/// sentence said once and never kept or sent, so, unlike a [`Msg`], no data.
#[derive(Debug)]
pub enum Line {
    InternalError,
    Error {
        message: String,
    },
    Cause {
        cause: String,
    },
    Usage {
        usage: String,
    },
    UsageMore,
    UsageUnknownArgument {
        arg: String,
    },
    UsageUnknownCommand {
        name: String,
    },
    UsageNeedsValue {
        arg: String,
    },
    UsageBadValue {
        arg: String,
        value: String,
    },
    UsageMissing {
        arg: String,
    },
    UsageNeedsCommand {
        name: String,
    },
    UsageOnce {
        arg: String,
    },
    UsageConflict {
        arg: String,
        prior: String,
    },
    UsageExtraValue {
        arg: String,
        value: String,
    },
    UsageValueCount {
        arg: String,
    },
    UsageNoEquals {
        arg: String,
    },
    UsageNotUtf8,
    UsageInvalid,
    UsageValues {
        values: String,
    },
    UsageCommands {
        commands: String,
    },
    UsageDidYouMean {
        suggested: String,
    },
    UsageWhy {
        why: String,
    },
    RememberedLibrary {
        library: String,
    },
    DemoWritten {
        dir: String,
        files: u64,
    },
    DemoTitleDataImported {
        data: String,
    },
    DemoTitleDataKept {
        dir: String,
    },
    DemoTryIt {
        data: String,
        library: String,
    },
    TaskDone {
        task: Task,
        said: String,
    },
    TaskPartial {
        task: Task,
        said: String,
    },
    FileFailed {
        key: String,
        why: String,
    },
    HandedOff {
        task: Task,
    },
    Healthy {
        url: String,
    },
    DeviceSet {
        name: String,
        address: String,
    },
    NoDevice,
    DeviceForgotten,
    Waiting {
        games: u64,
        bytes: u64,
    },
    PushAdded {
        key: String,
    },
    PushRemoved {
        key: String,
    },
    Restored {
        key: String,
    },
    PurgedOne {
        key: String,
    },
    PurgedExpired {
        entries: u64,
    },
    PurgedAll {
        entries: u64,
    },
    TrashDates {
        deleted: String,
        expires: String,
    },
    TrashTotal {
        entries: u64,
        bytes: u64,
    },
    BackedUp {
        file: String,
    },
    BackupNoKeys,
    BackedUpSaves {
        dir: String,
        files: u64,
    },
    KeyCreated {
        name: String,
        id: i64,
        read_only: bool,
    },
    KeyShownOnce,
    KeyRevoked {
        name: String,
        id: i64,
        prefix: String,
    },
    KeyWasRevoked {
        name: String,
        id: i64,
    },
    NoApiKey,
    RevokedOn {
        date: String,
    },
    AccountCreated {
        name: String,
        role: String,
    },
    PasswordChanged {
        name: String,
        ended: u64,
    },
    AccountDeleted {
        name: String,
    },
    NoAccount,
    ConsoleAdded {
        name: String,
    },
    ConsolePasswordOnce,
    NoConsole,
    ConsoleRemoved {
        name: String,
    },
    DedupePreview {
        files: u64,
        bytes: u64,
    },
    OrganizePreview {
        moves: u64,
        taken: u64,
        in_place: u64,
        left: u64,
    },
    NoOrganizeRun,
    OrganizeRunState {
        undone_at: Option<String>,
        moved: u64,
        put_back: u64,
    },
    KeysImported {
        file: String,
    },
    KeysTakenLive,
    KeysFile {
        file: String,
    },
    KeysUnusable {
        why: String,
    },
    KeysRead {
        state: KeysState,
        files: u64,
    },
    ImportedCatalogue {
        name: String,
        ids: u64,
        empty_version: u64,
        other_console: u64,
        no_kind: u64,
    },
    ImportedHistory {
        name: String,
        ids: u64,
        versions: u64,
        skipped: u64,
        oversized: u64,
        max_kib: u64,
    },
    ImportedRegion {
        name: String,
        entries: u64,
        skipped: u64,
        oversized: u64,
        max_kib: u64,
    },
    Renamed {
        games: u64,
    },
    TitleDataUnchanged,
    NoTitleData,
    LastImport {
        date: String,
        days: u64,
        files: String,
    },
    TitleCounts {
        known: u64,
        versions: u64,
        titles: u64,
        updates: u64,
        dlc: u64,
    },
    Ignored {
        title: Option<String>,
        dlc: bool,
        updates: bool,
        counted: bool,
    },
    Dated {
        date: String,
    },
}

impl Line {
    /// The line in English.
    pub fn english(&self) -> String {
        use Line::*;
        match self {
            InternalError => "internal error of ludotheque".into(),
            Error { message } => format!("error: {message}"),
            Cause { cause } => format!("detail: {cause}"),
            Usage { usage } => format!("Usage: {usage}"),
            UsageMore => "For more information, try “--help”.".into(),
            UsageUnknownArgument { arg } => format!("unexpected argument “{arg}”"),
            UsageUnknownCommand { name } => format!("unknown command “{name}”"),
            UsageNeedsValue { arg } => format!("“{arg}” needs a value"),
            UsageBadValue { arg, value } => format!("invalid value “{value}” for “{arg}”"),
            UsageMissing { arg } => format!("a required argument is missing: {arg}"),
            UsageNeedsCommand { name } => format!("“{name}” needs a command"),
            UsageOnce { arg } => format!("“{arg}” can be given only once"),
            UsageConflict { arg, prior } => format!("“{arg}” cannot be given with “{prior}”"),
            UsageExtraValue { arg, value } => format!("unexpected value “{value}” for “{arg}”"),
            UsageValueCount { arg } => format!("“{arg}” has the wrong number of values"),
            UsageNoEquals { arg } => format!("“{arg}” needs an = sign before its value"),
            UsageNotUtf8 => "an argument is not valid UTF-8".into(),
            UsageInvalid => "the command line is not valid".into(),
            UsageValues { values } => format!("; possible values: {values}"),
            UsageCommands { commands } => format!("; commands: {commands}"),
            UsageDidYouMean { suggested } => format!("; did you mean “{suggested}”?"),
            UsageWhy { why } => format!(" ({why})"),
            RememberedLibrary { library } => format!("Library: {library} (the one the service last ran with; --library names another)"),
            DemoWritten { dir, files } => format!("Demo library written to {dir}: {}.", files_en(*files)),
            DemoTitleDataImported { data } => format!("Its title data is imported (data folder {data})."),
            DemoTitleDataKept { dir } => format!("The data folder already has title data: the demo's is in {dir}."),
            DemoTryIt { data, library } => format!("Run “ludotheque --data {data} --library {library} serve” to try it."),
            TaskDone { task, said } => format!("Task {task} succeeded: {said}."),
            TaskPartial { task, said } => format!("Task {task} finished with errors: {said}."),
            FileFailed { key, why } => format!("  {key}: {why}"),
            HandedOff { task } => format!("Task {task} handed to the service that uses this data folder; Ctrl-C cancels it."),
            Healthy { url } => format!("The service at {url} is healthy."),
            DeviceSet { name, address } => format!("Console “{name}” set to {address}."),
            NoDevice => "No console is set.".into(),
            DeviceForgotten => "Console forgotten.".into(),
            Waiting { games, bytes } => format!("{}, {} waiting", EN.count(*games, "game", "games"), EN.count(*bytes, "byte", "bytes")),
            PushAdded { key } => format!("Added to the push list: {key}"),
            PushRemoved { key } => format!("Removed from the push list: {key}"),
            Restored { key } => format!("Restored: {key}"),
            PurgedOne { key } => format!("Deleted for good: {key}"),
            PurgedExpired { entries } => format!("{} deleted for good.", EN.count(*entries, "expired entry", "expired entries")),
            PurgedAll { entries } => format!("{} deleted for good.", EN.count(*entries, "entry", "entries")),
            TrashDates { deleted, expires } => format!("deleted {deleted}  expires {expires}"),
            TrashTotal { entries, bytes } => format!("{}, {}.", EN.count(*entries, "entry", "entries"), EN.count(*bytes, "byte", "bytes")),
            BackedUp { file } => format!("Database backed up to {file}."),
            BackupNoKeys => "The console keys file (prod.keys) is not in the copy: keep a separate copy of it, or extract it again from your console.".into(),
            BackedUpSaves { dir, files } => format!("Consoles' save backups ({files} files) copied to {dir}."),
            KeyCreated { name, id, read_only } => format!("API key created: {name} (id {id}, {} access)", if *read_only { "read-only" } else { "full" }),
            KeyShownOnce => "This key is kept only as a hash (SHA-256): it can never be shown again. Copy it now.".into(),
            KeyRevoked { name, id, prefix } => format!("API key revoked: {name} (id {id}, {prefix})"),
            KeyWasRevoked { name, id } => format!("The API key {name} (id {id}) was already revoked."),
            NoApiKey => "No API key.".into(),
            RevokedOn { date } => format!("revoked on {date}"),
            AccountCreated { name, role } => format!("Account created: {name} ({role})"),
            PasswordChanged { name, ended } => format!("Password changed for {name}; {}.", EN.count(*ended, "session ended", "sessions ended")),
            AccountDeleted { name } => format!("Account deleted: {name}"),
            NoAccount => "No account.".into(),
            ConsoleAdded { name } => format!("Console added: {name}"),
            ConsolePasswordOnce => "Enter them in the console's installer (the Consoles page says where, installer by installer). This password is kept only as a hash: it cannot be shown again. Copy it now.".into(),
            NoConsole => "No console: “ludotheque console add NAME” adds one.".into(),
            ConsoleRemoved { name } => format!("Console removed: {name} (its password no longer works)."),
            DedupePreview { files: 0, .. } => "No superseded file and no duplicate: nothing would go to the trash.".into(),
            DedupePreview { files, bytes } => format!("{} would go to the trash ({}); “ludotheque dedupe” puts {} there.", files_en(*files), EN.count(*bytes, "byte", "bytes"), EN.agree(*files, "it", "them")),
            OrganizePreview { moves, taken, in_place, left } => format!("{}, {} whose place is taken, {} already in place, {} left as they are (unidentified, or links).", EN.count(*moves, "file to move", "files to move"), EN.count(*taken, "file", "files"), EN.number(*in_place), EN.number(*left)),
            NoOrganizeRun => "No organize run has moved a file yet.".into(),
            OrganizeRunState { undone_at: Some(at), put_back, .. } => format!("undone on {at}, {} put back", EN.number(*put_back)),
            OrganizeRunState { undone_at: None, moved, put_back } => format!("{} moved, {} put back", EN.number(*moved), EN.number(*put_back)),
            KeysImported { file } => format!("Console keys imported into {file} (mode 0600)."),
            KeysTakenLive => "A running service takes them into account without a restart.".into(),
            KeysFile { file } => format!("Console keys file: {file}"),
            KeysUnusable { why } => format!("This file cannot be used: {why}"),
            KeysRead { state, files } => format!("{} {}", files_en(*files), match state {
                KeysState::Read => EN.agree(*files, "was read with the keys", "were read with the keys"),
                KeysState::Partial => EN.agree(*files, "was read in part with the keys (name or icon unreadable: see its note)", "were read in part with the keys (name or icon unreadable: see their notes)"),
                KeysState::WrongKeys => EN.agree(*files, "does not decrypt with these keys (is header_key the right one?)", "do not decrypt with these keys (is header_key the right one?)"),
                KeysState::MissingKey => EN.agree(*files, "needs a key revision the keys lack", "need a key revision the keys lack"),
                KeysState::Unreadable => "unreadable with the keys",
            }),
            ImportedCatalogue { name, ids, empty_version, other_console, no_kind } => format!("{name}: {}; skipped: {} without a version, {} of another console, {} of no type", EN.count(*ids, "title ID", "title IDs"), EN.number(*empty_version), EN.number(*other_console), EN.number(*no_kind)),
            ImportedHistory { name, ids, versions, skipped, oversized, max_kib } => format!("{name}: {} of {}; {}{}", EN.count(*versions, "dated version", "dated versions"), EN.count(*ids, "ID", "IDs"), EN.count(*skipped, "skipped", "skipped"), oversized_en(*oversized, *max_kib)),
            ImportedRegion { name, entries, skipped, oversized, max_kib } => format!("{name}: {}; {} (without an ID or a name){}", EN.count(*entries, "title imported", "titles imported"), EN.count(*skipped, "skipped", "skipped"), oversized_en(*oversized, *max_kib)),
            Renamed { games } => format!("{}.", EN.count(*games, "game renamed", "games renamed")),
            TitleDataUnchanged => "The title data is up to date: nothing changed at the source.".into(),
            NoTitleData => "No title data imported (ludotheque titles import).".into(),
            LastImport { date, days, files } => format!("Last import: {date} ({}), files: {files}", match days { 0 => "today".to_string(), 1 => "yesterday".to_string(), d => format!("{} ago", EN.count(*d, "day", "days")) }),
            TitleCounts { known, versions, titles, updates, dlc } => format!("{}, {}; in the library: {}, {} with an update available, {} with missing DLC.", EN.count(*known, "known title", "known titles"), EN.count(*versions, "version ID", "version IDs"), EN.count(*titles, "title", "titles"), EN.number(*updates), EN.number(*dlc)),
            Ignored { title, dlc, updates, counted } => format!("{}: {} {}.", title.as_deref().unwrap_or("Every title"), match (dlc, updates) { (true, true) => "missing DLC and updates", (true, false) => "missing DLC", _ => "updates" }, if *counted { "are counted again" } else { "are no longer counted" }),
            Dated { date } => format!(" from {date}"),
        }
    }
}

/// Why a line of a console keys file was refused. It names a key at most, never
/// holds a value (nor any part of one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum KeysLine {
    NotText,
    NoEquals,
    BadName,
    NoValue,
    NotHex,
    OddDigits,
    WrongLength {
        name: String,
        digits: u64,
        expected: u64,
    },
    Twice {
        name: String,
    },
}

/// Why an organize undo left a file where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotBack {
    /// It is no longer where the run put it (moved, deleted, or moved by a later run).
    Gone,
    /// Another file is at its old place.
    Taken,
    /// The move failed (the log says why).
    Failed,
}

/// What is wrong with an NCA `verify` found damaged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NcaFault {
    /// Its SHA-256 (or size) is not the one its CNMT records, or not its name's
    /// content ID.
    Mismatch,
    /// A CNMT lists it; the file lacks it.
    Missing,
    /// Shorter than its record, or cut by the end of the file.
    Truncated,
    /// A compressed NCA that does not decompress.
    Unreadable,
}

/// Why `verify` could not check a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerifyGap {
    NoCnmt,
    NoHeaderKey,
    WrongKeys,
    MissingKey,
    PersonalizedTicket,
    NoTicket,
    Malformed,
    ReadError,
}

/// The sentence every 500 carries; the cause goes to the log.
pub const INTERNAL_MESSAGE: &str =
    "The service encountered an internal error; the details are in its log.";

impl Msg {
    /// The stable name of the message (not of the error's kind).
    pub fn slug(&self) -> String {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(map)) => match map.get("slug") {
                Some(serde_json::Value::String(s)) => s.clone(),
                _ => String::new(),
            },
            _ => String::new(),
        }
    }

    /// The sentence in English, for the API's `message` and the log.
    pub fn english(&self) -> String {
        use Msg::*;
        match self {
            Internal => INTERNAL_MESSAGE.into(),
            DatabaseTooNew => "The database was written by a newer version of the service.".into(),
            DataLocked => "Another ludotheque process is using this data folder.".into(),
            LibraryUnavailable => "The library folder is missing, unreadable or empty; nothing was changed. Check that its disk is mounted.".into(),
            Busy => "A task is already running; retry when it has finished.".into(),
            Cancelled => "The task was cancelled.".into(),
            Overloaded => "The service is busy with other requests; retry shortly.".into(),
            RateLimited => "Too many requests; wait before trying again.".into(),
            NoRoute => "There is no such route.".into(),
            MethodNotAllowed => "This method is not allowed on this route.".into(),
            ApiKeyRequired => "A valid API key is required (header X-Api-Key).".into(),
            LoginFailed => "Wrong name or password.".into(),
            CrossOrigin => "Cross-origin state-changing requests are refused.".into(),
            KeyOutOfScope => "An API key only reaches /api/v1/ routes.".into(),
            KeyReadOnly => "This API key is read-only.".into(),
            ShopCredentialsRequired => "The shop needs a console's name and password (HTTP Basic); an administrator creates them with “ludotheque console add NAME”.".into(),
            KeyNotForShop => "An API key does not open the shop: use a console's name and password (HTTP Basic).".into(),
            ViewerReadOnly => "A viewer account can view but not change anything.".into(),
            PayloadTooLarge { limit } => format!("The request body is larger than the limit of {limit} bytes."),
            UriTooLong { limit } => format!("The request target is longer than the limit of {limit} bytes."),
            HeadersTooLarge { limit } => format!("The request headers are larger than the limit of {limit} bytes."),
            OneHostHeader => "A request carries one Host header.".into(),
            BadTarget => "The request target is a path starting with / (or an absolute http:// URL).".into(),
            BodyUnreadable => "The request body could not be read.".into(),
            BodyTooSlow => "The request body did not arrive in time.".into(),
            AmbiguousLength { why } => format!("The request's length is ambiguous ({why}); the connection is closed."),
            MissingParameter { name } => format!("The query parameter '{name}' is required."),
            BadJson { expected } => format!("Expected a JSON object with {expected}."),
            SearchTooLong { bytes, words } => format!("A search text has at most {bytes} bytes and {words} words."),
            BadGameType => "The parameter 'type' must be one of BASE, UPDATE, DLC, INCONNU.".into(),
            NoSuchFile => "There is no such file.".into(),
            NoSuchDownload => "There is no such download.".into(),
            FileGone => "That file is no longer in the library.".into(),
            NameLength { what, max } => format!("{what} must have 1 to {max} characters and no spaces at either end."),
            NameControl { what } => format!("{what} cannot hold control characters (such as a newline or a tab)."),
            NameInvisible { what } => format!("{what} cannot hold invisible characters: no format characters (Unicode category Cf: zero-width spaces and joiners, direction marks, embeddings, overrides and isolates, the byte order mark), no other default-ignorable characters (variation selectors, fillers, the soft hyphen), and no space but the ordinary one."),
            PasswordTooShort { min } => format!("A password needs at least {min} characters."),
            PasswordTooLong { max } => format!("A password must have at most {max} bytes."),
            BadRole => "A role must be 'admin' or 'viewer'.".into(),
            AccountExists => "An account with that name already exists.".into(),
            AlreadySetUp => "An account already exists: sign in instead.".into(),
            NoAccount { .. } => "No account has that name.".into(),
            SetupCodeNeeded => "The first account needs the setup code the service wrote to its log when it started (the terminal that runs it, “journalctl -u ludotheque” or “docker logs CONTAINER”), or “ludotheque user add NAME --admin” on its machine.".into(),
            SetupCodeWrong => "That is not the setup code. It is on the line “…with the setup code CODE…” the service wrote to its log when it started (the terminal that runs it, “journalctl -u ludotheque” or “docker logs CONTAINER”).".into(),
            NotSignedIn => "Only a signed-in account has a language and a password.".into(),
            BadLang => "The language is 'fr' or 'en'.".into(),
            AdminOnly => "Only an admin can see the accounts.".into(),
            NoApiKey { .. } => "No API key has that id.".into(),
            NoGame { .. } => "No game has that key.".into(),
            NotTitleId => "That is not a title ID.".into(),
            ConsoleCredentialsRequired => "Save backups need a console's name and password (HTTP Basic), as in the shop.".into(),
            NoSave => "This console has no such save backup.".into(),
            BadSaveId => "A save ID has 1 to 96 characters among A-Z, a-z, 0-9, '.', '_' and '-'.".into(),
            NoSaveArchive => "The upload holds no save archive: send it as the form field 'file'.".into(),
            SaveNotZip => "The save archive is not a readable zip file; nothing was kept.".into(),
            SaveUnsafeEntry { entry } => format!("The save archive holds an entry that could write outside its folder (\"{entry}\"); nothing was kept."),
            NotMultipart => "An upload is a multipart/form-data body.".into(),
            SaveRestoreName => "A save backup can only be restored under its own name.".into(),
            SaveDiskFull => "The disk of the data folder is full: nothing was kept, and the earlier versions are as they were.".into(),
            DavTaken => "Something is already there, and the request said not to overwrite it.".into(),
            DavNoParent => "The folder it would go in does not exist.".into(),
            DavBody => "A new folder takes no body.".into(),
            DavBadXml => "The XML body is not well formed, or not what this method takes.".into(),
            DavBadPath => "A path segment is empty, '.', '..', or holds a control character or '\\'.".into(),
            DavIsFolder => "That is a folder.".into(),
            DavSame => "The source and the destination are the same, or one holds the other.".into(),
            DavBadDestination => "The Destination header names no place in this console's space.".into(),
            DavRoot => "The console's own folder cannot be deleted, moved or replaced.".into(),
            DavTooMany { max } => format!("That is more than {max} entries, or a larger answer than the service gives at once: ask for less (Depth: 1, fewer properties)."),
            DavTooDeep { max } => format!("A path has at most {max} folders."),
            DavPropsTooLarge => "A property's value has at most 64 KiB, and a file at most 256 properties and 256 KiB of them in all.".into(),
            SaveQuota { quota } => format!("This console's saves would pass its quota of {quota} bytes: nothing was kept."),
            FormFieldTooLong { max } => format!("A form field other than the file has at most {max} bytes."),
            NothingOfTitle { .. } => "The library has no files for that title.".into(),
            NotCompressed { key } => format!("Only .nsz and .xcz files decompress; \"{key}\" is not one."),
            BadSlug => "A slug has 1 to 32 characters among a-z, 0-9 and '-'.".into(),
            BadFolder => "The folder is a path inside the library, like 'retro/gba', without '..'.".into(),
            FolderRefused => "The folder cannot be a link, a hidden folder or the trash.".into(),
            BadExtensions => "Extensions are short words of letters and digits, like 'gba, zip'.".into(),
            PlatformExists => "A platform with that slug already exists.".into(),
            NoPlatform => "No platform has that slug.".into(),
            LastPlatform => "The last platform cannot be removed.".into(),
            NoTrashEntry => "No trash entry has that id.".into(),
            TrashFolderLink => "The trash folder is a link or not a folder; nothing was done. Remove it by hand.".into(),
            TrashEntryVanished => "The file of this trash entry has vanished.".into(),
            TrashEntryLink => "This trash entry passes through a link or is a folder; nothing was moved.".into(),
            KeyOccupied => "A file already exists at that key; nothing was moved.".into(),
            LinkOnTheWay => "A folder on the way to that key is a link or not a folder; nothing was moved.".into(),
            NoDevice => "No console is set up: set one up on the push page or with “ludotheque device set”.".into(),
            ShopMessage { max } => format!("The shop's message has at most {max} characters and no control characters."),
            ConsoleNameColon => "A console's name cannot contain ':' (HTTP Basic ends the name there).".into(),
            ConsoleNameDots => "A console's name cannot be '.' or '..' (in an address they name a folder).".into(),
            ConsoleNameAddress => "A console's name cannot be an IP address: with --shop-public, clients without a name are known by their address.".into(),
            ConsoleExists { name } => format!("A console is already named '{name}'."),
            NoConsole { name } => format!("No console is named '{name}'."),
            ConsoleAddressNotIp => "The console's address must be an IP address.".into(),
            BadPort => "The console's port must be between 1 and 65535.".into(),
            OfferAddressNotIp => "The address offered to the console must be an IP address.".into(),
            BadConsoleAddress { host } => format!("The console's address {host} is not valid."),
            NoRouteToConsole => "No route to the console was found.".into(),
            ListenUnreachable { listen, port } => format!("The service listens on {listen}, which the console cannot reach: listen on the network (--listen 0.0.0.0:{port})."),
            ConsoleNotWaiting => "The console is not waiting on its network install screen (the connection failed); nothing left the list.".into(),
            NothingReached { address } => format!("No request reached the service: the console could not reach {address} (firewall, wrong address, VPN?)."),
            NotInPushList { .. } => "That game is not in the push list.".into(),
            ConvertFailed { key, reason } => format!("{key}: {reason}"),
            ConvertTargetExists { key, target } => format!("{key}: {target} already exists; skipped"),
            NoDataFolder { folder } => format!("the data folder {folder} does not exist: run the command where it is, name it with --data (or LUDOTHEQUE_DATA), or start the service once (ludotheque serve), which creates it"),
            DataFolderPrivate => "the data folder cannot be made private".into(),
            FolderUnusable { what } => format!("the {what} folder cannot be created or opened"),
            AtLeastOne => "--workers, --queue, --max-connections, --shop-downloads and --shop-downloads-total must be at least 1".into(),
            TimeoutsAtLeastOne => "--idle-timeout-secs, --request-timeout-secs and --write-timeout-secs must be at least 1".into(),
            RatesPositive => "rate limits must be positive (--key-rate, --key-burst, --auth-failures-per-minute)".into(),
            UnknownUser { name } => format!("--local-access-users: no user of this machine is named {name:?}"),
            CannotListen { address } => format!("cannot listen on {address}"),
            TaskInterrupted { task, done, total, unit } => format!("the {task} task was interrupted ({done} {unit} of {total})"),
            TaskFailed { task, message } => format!("the {task} task failed: {message}"),
            TaskRunning { task, by } => format!("A task is already running: {task}, started by {by}; retry when it has finished."),
            HandoffRefused => "The running service closed the connection without starting the task; its log says why.".into(),
            HandoffLost => "The connection to the running service was lost before the task ended; the task goes on in the service (see its Tasks page).".into(),
            CannotOpen { file } => format!("{file} cannot be opened"),
            BadTitleFile { file, reason } => format!("{file} is not readable title data: {reason}; the previous data is kept"),
            NotTitleFile { file } => format!("the file {file} is none of the title data files (versions.txt, versions.json, or a region file such as US.en.json)"),
            NoTitle { id } => format!("No title in the library has the ID {id}."),
            BadRegion => "A region is two letters, a dot and two letters, such as US.en.".into(),
            BadTitleUrl => "The title data URL must be http(s), without a query.".into(),
            BadHealthUrl => "--url must be the service's base URL, http(s)://HOST:PORT, without a query.".into(),
            HealthPortZero => "The service listens on port 0 (a free port it picks): give its address with --url.".into(),
            HealthUnreachable { url } => format!("The service at {url} does not answer."),
            Unhealthy { url, status } => format!("The service at {url} answered {status} to its health check."),
            HealthNotOk { url } => format!("The service at {url} did not answer its health check with status ok."),
            BadWebhookUrl => "The webhook URL must be http(s) with a host, without blanks.".into(),
            WebhookSecretAlone => "A webhook secret needs a webhook URL.".into(),
            WebhookUrlFile => "The webhook URL file cannot be read.".into(),
            NotifyFile => "The notification targets file cannot be read.".into(),
            BadPublicUrl => "--public-url must be an http(s) address with a host, in ASCII (an international name in its xn-- form), without blanks.".into(),
            BadNotifyUrl { shown } => format!("{shown} is not a notification target: use ntfy://, ntfys://, gotify://, gotifys://, discord://, tgram://, json:// or jsons:// (NOTIFICATIONS in ludotheque-serve(1))."),
            NoNotifyTarget => "No notification target has that id.".into(),
            NotifyTargetFixed => "This target was given at start (--notify or --notify-file): remove it there.".into(),
            NotifyFailed { reason } => format!("The test message could not be sent: {reason}."),
            NotifySent => "Test message sent.".into(),
            NotifyTestRunning => "A test message is being sent: wait for its answer, then try again.".into(),
            NoteNewGames { count, names } => format!("{} new in the library: {names}", EN.count(*count, "title", "titles")),
            NoteUpdates { count, names } => format!("{} in the library {} updates or DLC you do not have: {names}", EN.count(*count, "title", "titles"), EN.agree(*count, "has", "have")),
            NoteTaskEnded { task, failed, message } => format!("The {} task {}: {}", super::i18n::M::of_task(*task).get(crate::words::Lang::En).to_lowercase(), if *failed { "failed" } else { "ended with errors" }, message.english()),
            NoteDamaged { count } => format!("{} found damaged.", EN.count(*count, "file", "files")),
            NoteLibraryOffline => "The library's folder is missing or unreadable: is its disk mounted?".into(),
            NoteSaveBackedUp { console, title } => format!("{console} backed up its save of {title}."),
            NoteLowSpace { library, percent, free } => format!("The {} disk has only {percent}% free ({}).", if *library { "library's" } else { "data folder's" }, EN.size(*free)),
            NoteTest => "Notifications from Ludothèque reach you here.".into(),
            BadOrganizeTemplate => "The organize template must be a relative path ending in .{ext}, with only the placeholders {name}, {dlc_name}, {title_id}, {base_title_id}, {version}, {type} and {ext}.".into(),
            NoOrganizeRun => "No organize run has that number.".into(),
            BadTitleStatus => "status must be update_available, dlc_missing, base_missing, base_damaged, complete or unknown.".into(),
            BadMissingKind => "kind must be update or dlc.".into(),
            BadMissingFormat => "format must be csv or json (or left out for pages).".into(),
            TitleSourceDown { file, reason } => format!("{file} could not be fetched: {reason}; the previous data is kept"),
            FileExists { file } => format!("{file} already exists; choose another file"),
            CannotCreate { file } => format!("{file} cannot be created"),
            BackupFailed { file } => format!("the backup to {file} failed"),
            PasswordUnreadable { reason } => format!("reading the password: {reason}"),
            PasswordsDiffer => "the two passwords differ".into(),
            NoRoomToConvert { needed, free } => format!("Decompressing needs {} but the library's disk has {} free (the originals stay in the trash until purged); nothing was decompressed.", EN.size(*needed), EN.size(*free)),
            ScanDone { files, read, unchanged, removed } => format!("{}: {read} read, {unchanged} unchanged, {removed} removed", files_en(*files)),
            ScanIdentified { files, read, identified } => format!("{}: {read} read, {} identified with the console keys", files_en(*files), EN.count(*identified, "file", "files")),
            ScanIncomplete { files, read, unchanged, kept } => format!("{}: {read} read, {unchanged} unchanged; part of the library could not be read, so {kept} not found were kept", files_en(*files)),
            TaskPartial { task, failed } => format!("the {task} task finished, but {} failed", EN.count(*failed, "item", "items")),
            ConvertDone { converted, failed } => format!("{converted} converted, {failed} failed"),
            CompressDone { compressed, skipped, failed, saved } => format!("{compressed} compressed ({} saved), {skipped} skipped, {failed} failed", EN.size(*saved)),
            CompressFailed { key, reason } => format!("{key}: {reason}"),
            CompressTargetExists { key, target } => format!("{key}: {target} already exists; skipped"),
            CompressUnverified { key, why } => format!("{key}: the compressed file did not verify ({}); the original was kept", why.english()),
            NoRoomToCompress { needed, free } => format!("Compressing needs {} but the library's disk has {} free (the originals stay in the trash until purged); nothing was compressed.", EN.size(*needed), EN.size(*free)),
            AlreadyCompressed => "already compressed".into(),
            NotCompressible => "only .nsp and .xci files are compressed".into(),
            CompressKeyMissing { revision } => format!("the console keys lack the key revision {revision}; left as it is"),
            CompressGainTooSmall { size, compressed, min_gain } => format!("compressing would save {}% (under {min_gain}%); left as it is", gain_percent(*size, *compressed)),
            PushEmpty => "The push list is empty; nothing was offered.".into(),
            PushDone { delivered, partial, untouched, ended } => {
                let how = match ended {
                    PushEnd::Ack => "the console acknowledged",
                    PushEnd::Drop => "the console sent DROP",
                    PushEnd::Closed => "the console closed the connection",
                    PushEnd::Quiet => "nothing happened for too long",
                };
                format!("{delivered} delivered, {partial} partial, {untouched} untouched ({how})")
            }
            TitlesDone { files, entries, renamed, icons } => format!("{} imported: {}; {} renamed.{}", EN.count(*files, "title data file", "title data files"), EN.count(*entries, "entry", "entries"), EN.count(*renamed, "game", "games"), icons_english(icons)),
            TitlesUnchanged { icons } => format!("The title data is unchanged at the source.{}", icons_english(icons)),
            OrganizeDone { moved, run, taken, in_place, left } => {
                let undo = match moved {
                    0 => String::new(),
                    _ => format!(" (run {run}: its “Undo this run” button on the Upkeep page, or “ludotheque organize --undo {run}”, puts them back)"),
                };
                format!("{} moved{undo}; {taken} skipped because their destination is in use, {in_place} already in place, {left} unidentified or links left alone", files_en(*moved))
            }
            OrganizeUndone { run, moved_back, skipped } => format!("Organize run {run} undone: {} put back, {skipped} not", files_en(*moved_back)),
            OrganizeNotBack { why } => match why {
                NotBack::Gone => "not put back: it is no longer where the organize run put it",
                NotBack::Taken => "not put back: another file holds its old place",
                NotBack::Failed => "not put back: the move failed (the log says why)",
            }
            .into(),
            OrganizeRunUndone { run } => format!("Organize run {run} is already undone."),
            DedupeDone { superseded, duplicates, bytes } => format!("{superseded} superseded and {duplicates} duplicate {} moved to the trash ({})", EN.agree(*superseded + *duplicates, "file", "files"), EN.count(*bytes, "byte", "bytes")),
            VerifyDone { sound, damaged, unverifiable } => format!("{} sound, {damaged} damaged, {unverifiable} that could not be verified", EN.count(*sound, "file", "files")),
            CompressNeedsKeys => "Compressing needs the console keys (prod.keys), and none are loaded; nothing was compressed.".into(),
            VerifyNeedsKeys => "Verifying needs the console keys (prod.keys), and none are loaded; nothing was verified.".into(),
            TaskStopped => "The service stopped while this task was running.".into(),
            FolderUnreadable { folder } => format!("the folder {folder} could not be read"),
            PlatformFolderRefused => "a platform folder is a link or hidden and was not walked".into(),
            NameNotUtf8 => "a file name that is not valid UTF-8 was skipped".into(),
            FileUnexaminable => "the file could not be examined".into(),
            FileDamaged { detail } => format!("the file is damaged or not a valid container ({detail})"),
            NcaDamaged { nca, what, detail, more } => nca_damaged_english(nca, *what, detail, *more),
            NotVerifiable { what, nca, detail } => not_verifiable_english(*what, nca, detail),
            NotAFile { key, what } => {
                let what = match what.as_str() {
                    "fifo" => "a named pipe (FIFO)",
                    "socket" => "a socket",
                    "device" => "a device",
                    "folder" => "a folder",
                    _ => "something else",
                };
                format!("{key} is {what}, not a regular file; it is neither read nor moved")
            }
            // Administering from the browser.
            LastAdmin => "The last admin can be neither removed nor made a viewer: make another account an admin first.".into(),
            NotOnYourself => "An admin cannot remove, demote or reset their own account: another admin can (your own password changes with the form above).".into(),
            BadRestoreName { ext } => format!("The new name is a file name only (no '/', not '..'), 1 to 255 bytes, ending in .{ext} like the file."),
            ConsoleKeysLine { line, why } => format!("Line {line} of the console keys file is malformed: {}.", keys_line_english(why)),
            ConsoleKeysEmpty => "The console keys file holds none of the keys the service uses (header_key, master_key_XX, key_area_key_application_XX, titlekek_XX and the sources): is it prod.keys as Lockpick_RCM writes it?".into(),
            ConsoleKeysTooLarge { limit } => format!("The console keys file is larger than {limit} bytes: it is not a prod.keys file."),
            ConsoleKeysNotWritten => "The console keys file could not be written; the previous one is unchanged.".into(),
            ConsoleKeysUnreadable => "The console keys file cannot be read (its permissions?); the details are in the log.".into(),
            ConsoleKeysLink => "Refused: the console keys file in the data folder is a symbolic link, and it was not read. Import the file itself (“ludotheque keys import FILE”), or name it with --keys.".into(),
            StartedByUser { name } => format!("started by {name}"),
            StartedByKey { name } => format!("started by the API key “{name}”"),
            FirstScan { done, total } => format!("First scan under way ({} / {})", EN.number(*done), EN.number(*total)),
            TimeLeft { secs } => format!("about {} left", duration(*secs)),
            ConvertRoom { files, needed, free } => format!("{} to decompress: {} once decompressed (the originals stay in the trash); {} free on the library's disk.", files_en(*files), EN.size(*needed), EN.size(*free)),
            KeysNeedRevision { files, revision } => format!("{} {} key revision 0x{revision}: add master_key_{revision} or key_area_key_application_{revision}.", files_en(*files), EN.agree(*files, "needs", "need")),
            KeysWrongHeader { files } => format!("{} {} not decrypt with these keys: is header_key the right one?", files_en(*files), EN.agree(*files, "does", "do")),
            KeysSuspect { names } => format!("These keys do not match their public checksum (CRC32) and may be mistyped: {names}. The file is used as is."),
            ConfirmPurgeOne { name, bytes: b } => format!("Delete “{name}” ({}) for good?", EN.size(*b)),
            ConfirmPurgeConverted { files, bytes: b } => format!("Delete the decompressed .nsz/.xcz for good: {}, {}? Their decompressed files stay in the library.", files_en(*files), EN.size(*b)),
            ConfirmEmptyTrash { files, bytes: b } => format!("Empty the trash: delete {}, {} for good?", files_en(*files), EN.size(*b)),
            Freed { files, bytes: b } => format!("{} for good: {} freed.", EN.count(*files, "file deleted", "files deleted"), EN.size(*b)),
            ConfirmNewConsolePassword { name } => format!("Give {name} a new password? The old one stops working at once; the new one is shown once."),
            ConfirmRemoveConsole { name } => format!("Remove the console “{name}”? Its password will no longer open the shop."),
            ConfirmTrashSave { name } => format!("Move “{name}” to the trash? It can be restored from there."),
            SavesAdminOnly => "Only an admin can download a console's saves.".into(),
            NameConflict { named, holds } => format!("Named {named}, holds {holds}: the contents win."),
            ConfirmRemovePlatform { name } => format!("Remove the platform “{name}”? Its files stay on disk but leave the library."),
            ConfirmMakeViewer { name } => format!("Make “{name}” a viewer? The account will no longer change anything."),
            ConfirmRemoveAccount { name } => format!("Remove the account “{name}”? Its sessions will end."),
            ConfirmRevokeKey { name } => format!("Revoke the API key “{name}”? Scripts that use it will be refused."),
            ConvertAllAsk { files } => format!("Decompress {} of the library, .nsz/.xcz to .nsp/.xci?", files_en(*files)),
            CompressAllAsk { files, bytes: b } => format!("Compress {} of the library ({}), .nsp/.xci to .nsz/.xcz? Each original goes to the trash once its copy is written.", files_en(*files), EN.size(*b)),
            CompressEstimate { low, high, bytes: b } => format!("Estimated saving: {} to {} of {} (35–50%; an estimate, the real saving depends on the games).", EN.size(*low), EN.size(*high), EN.size(*b)),
            CompressSaved { saved, trash } => format!("Last compress: {} saved; the trash holds {} (the originals there free nothing until purged).", EN.size(*saved), EN.size(*trash)),
            OrganizeUndoAsk { run, files } => format!("Put the files of run #{run} ({}) back where they were?", files_en(*files)),
            PlanMore { more } => format!("… and {} more", EN.number(*more)),
            DedupeKeptNote { what, key } => format!("{what}; copy kept: {key}"),
            DedupeAsk { files, bytes: b } => format!("Move {} ({}) to the trash?", files_en(*files), EN.size(*b)),
            DedupeAskText { days, bytes: b } => format!("Each can be restored from the trash for {days} days; the space ({}) is freed when the trash purges them.", EN.size(*b)),
            OrganizeAsk { files } => format!("Move {}?", files_en(*files)),
            ConfirmClearPush { files, bytes: b } => format!("Remove {} ({}) from the push list? They stay in the library.", EN.count(*files, "file", "files"), EN.size(*b)),
            WhereGamesGo { folder } => format!("Put your game files (.nsp, .nsz, .xci, .xcz) in the library folder, “{folder}” (the one --library names), in any subfolders you like."),
            TemplateByFlag => "The organize template is set at startup with --organize-template, which overrides Settings.".into(),
            RetentionByFlag => "The trash's retention is set at startup with --trash-retention-days, which overrides Settings.".into(),
            BadRetention => "days must be a whole number from 1 to 3650.".into(),
            BadListenAddress { address } => format!("“{address}” is not an address to listen on: write an IP address and a port, such as 0.0.0.0:8080 (every interface) or 127.0.0.1:8080 (this machine only)."),
            ListenInUse { address } => format!("cannot listen on {address}: another program uses that port."),
            FilesFailed { files } => EN.count(*files, "file failed", "files failed"),
            TooManyTitleFiles { max } => format!("At most {max} title data files at once: versions.txt, versions.json and a region file are enough."),
            NoTitleFiles => "The upload holds no file: choose versions.txt, versions.json or a region file such as US.en.json.".into(),
            TitleDiskFull => "The disk of the data folder is full: nothing was imported.".into(),
            TitlesKnownNow { titles } => format!("{} known now.", EN.count(*titles, "title", "titles")),
            ListenByFlag => "The address is set at startup with --listen or LUDOTHEQUE_LISTEN, which overrides this page.".into(),
            ListeningOn { address } => format!("Now listening on {address}."),
            FilesIdentified { files } => format!("{} identified with the console keys.", EN.count(*files, "file", "files")),
            AddedToPush { files, total } => format!("{} added to the push list, which now holds {total}.", EN.count(*files, "file", "files")),
            ConfirmForgetDevice { name, host } => format!("Forget the console “{name}” ({host})? The push list is kept."),
            ShopDefaultMessage { files } => format!("Ludothèque · {}", files_en(*files)),
        }
    }
}

fn nca_damaged_english(nca: &str, what: NcaFault, detail: &Detail, more: u32) -> String {
    let what = match what {
        NcaFault::Mismatch => format!(
            "the NCA {nca} does not match its content record (SHA-256): it is corrupt or modified"
        ),
        NcaFault::Missing => format!("the NCA {nca}, which its CNMT lists, is not in the file"),
        NcaFault::Truncated => format!("the NCA {nca} is truncated"),
        NcaFault::Unreadable => format!("the NCA {nca} cannot be decompressed ({detail})"),
    };
    match more {
        0 => what,
        n => format!("{what} (and {n} more damaged NCA)"),
    }
}

/// The share of `size` that `compressed` saves, in whole percent (0 when it grows).
pub fn gain_percent(size: u64, compressed: u64) -> u64 {
    (size.saturating_sub(compressed) * 100)
        .checked_div(size)
        .unwrap_or(0)
}

fn not_verifiable_english(what: VerifyGap, nca: &str, detail: &Detail) -> String {
    let why = match what {
        VerifyGap::NoCnmt => "the file holds no CNMT to check its NCAs against".into(),
        VerifyGap::NoHeaderKey => "the console keys have no header_key".into(),
        VerifyGap::WrongKeys => {
            format!("the header of {nca} does not decrypt with these console keys")
        }
        VerifyGap::MissingKey => {
            format!("{nca} needs key revision {detail}, which the console keys lack")
        }
        VerifyGap::PersonalizedTicket => {
            format!("the title key of {nca} is in a personalized ticket")
        }
        VerifyGap::NoTicket => format!("no ticket holds the title key of {nca}"),
        VerifyGap::Malformed => format!("{nca} is malformed ({detail})"),
        VerifyGap::ReadError => "the file could not be read".into(),
    };
    format!("not verifiable: {why}")
}

fn keys_line_english(why: &KeysLine) -> String {
    match why {
        KeysLine::NotText => "it is not text (a keys file is lines of name = hex digits)".into(),
        KeysLine::NoEquals => "it has no '=' between a name and a value".into(),
        KeysLine::BadName => "the name holds something other than letters, digits and '_'".into(),
        KeysLine::NoValue => "no value follows the '='".into(),
        KeysLine::NotHex => "the value is not hexadecimal".into(),
        KeysLine::OddDigits => "the value has an odd number of hex digits".into(),
        KeysLine::WrongLength {
            name,
            digits,
            expected,
        } => format!("{name} takes {expected} hex digits, not {digits}"),
        KeysLine::Twice { name } => format!("{name} is given twice, with different values"),
    }
}

/// ", and 2 fields skipped over 64 KiB", or nothing.
fn oversized_en(fields: u64, max_kib: u64) -> String {
    match fields {
        0 => String::new(),
        n => format!(
            ", and {} over {max_kib} KiB",
            EN.count(n, "field skipped", "fields skipped")
        ),
    }
}

fn files_en(n: u64) -> String {
    EN.count(n, "file", "files")
}

fn icons_english(icons: &Option<(u64, u64)>) -> String {
    match icons {
        Some((fetched, failed)) => format!(" Icons: {fetched} fetched, {failed} failed."),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_a_slug_and_its_parameters() {
        let m = Msg::MissingParameter { name: "q".into() };
        assert_eq!(m.slug(), "missing_parameter");
        assert_eq!(
            serde_json::to_value(&m).unwrap(),
            serde_json::json!({"slug": "missing_parameter", "name": "q"})
        );
        assert_eq!(m.english(), "The query parameter 'q' is required.");
    }
}
