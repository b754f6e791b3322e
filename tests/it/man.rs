//! The man pages under `man/` are generated from the clap definitions plus written
//! sections; this test fails when a checked-in page is out of date.
//!
//!     LUDOTHEQUE_UPDATE_MAN=1 cargo test --test it man   # rewrite them

use std::path::Path;

use clap::CommandFactory;

/// The pages' date: that of the last change to the command line (kept fixed so that
/// regenerating an unchanged page gives the same bytes).
const DATE: &str = "2026-11-28";

const WRITTEN: &str = r#".SH ENVIRONMENT
Every flag can also be given as an environment variable, shown above beside the
flag; the flag wins. The global ones:
.TP
.B LUDOTHEQUE_DATA
The data folder (database, lock file).
.TP
.B LUDOTHEQUE_LIBRARY
The library root. Given neither it nor
.BR \-\-library ,
a command uses the library the service last ran with (the database keeps it), and
names it on standard error.
.TP
.B LUDOTHEQUE_LOG_LEVEL
off, error, warn, info, debug or trace. Logs go to standard error, in English.
.TP
.BR LC_ALL ", " LC_MESSAGES ", " LANG
The language of what the commands print and of their help: the first of them that
is set and not empty decides, as POSIX orders them. A locale naming English
.RI ( en ,
.IR en_GB.UTF-8 )
gives English; any other, and none, gives French, the product's language. Flags,
commands, logs and these pages stay English.
.PP
And one of
.BR serve 's,
as it often carries a token:
.TP
.B LUDOTHEQUE_WEBHOOK_URL
The webhook's address
.RB ( "serve \-\-webhook\-url" ,
see
.BR ludotheque-serve (1)).
A token in it is better given here, or in a file named by
.B \-\-webhook\-url\-file
.RB ( LUDOTHEQUE_WEBHOOK_URL_FILE ),
than on the command line, where the list of processes shows it: the service warns
at start of an address with credentials or a query given there.
.SH FILES
.TP
.I DATA/ludotheque.db
The SQLite database (WAL mode, with
.I -wal
and
.I -shm
beside it). Migrations run at start; a database written by a newer version is refused.
.TP
.I DATA/ludotheque.lock
Locked by a running server, and by a command running a task itself.
.TP
.I DATA/ludotheque.sock
The running server's socket for the command line (mode 0600, root and the server's
own user only): while a server holds the data folder,
.BR scan ", " convert ", " verify ", " compress ", " dedupe " and " organize
(with
.BR \-\-undo )
hand their task to it through this socket instead of refusing. Removed at a clean
stop; one left by a killed server is replaced at the next start.
.TP
.I DATA/prod.keys
The console keys, when imported (mode 0600; see
.BR ludotheque-keys (1));
.B \-\-keys
names another file. Not in
.BR backup 's
copy.
.TP
.I DATA/titledb/
The last good copy of each title data file
.B titles update
fetched.
.TP
.I DATA/icons/
Title icons, one file per title ID: read from the library's files with the console
keys, drawn by
.BR demo-library ,
and, only when fetching them is turned on in the web settings, from the title data's
host (a third party).
.TP
.I DATA/titles-incoming/
Title data files uploaded from Settings while they arrive; removed once imported or
refused, and at the next start after a stop in the middle.
.TP
.I LIBRARY/.ludotheque-trash/
The trash: each entry's file under its id, at its original key.
.SH EXIT STATUS
0 on success (also after SIGTERM or SIGINT stopped the server cleanly); 1 on an
error, printed in French on standard error; 2 on a usage error, and when the data
folder does not exist: only
.B serve
and
.B demo\-library
create it (an existing empty folder is set up by any command);
.BR completions ,
.B \-\-help
and
.B \-\-version
never touch it.
.SH LOCAL ACCESS
A keyless request from this machine (a peer in 127.0.0.0/8 or ::1, a loopback
.BR Host ,
no
.BR Forwarded ,
.B X\-Forwarded\-*
or
.B X\-Real\-IP
header) gets full access without a key or a session: the loopback rule, for the
admin's curl on the host and a container's health probe. It is given only to
programs of root, of the service's own user, or of a user named in
.BR \-\-local\-access\-users :
the service asks the kernel for the owner of the peer's socket (sock_diag, or
.I /proc/net/tcp
and
.IR /proc/net/tcp6 )
for each such request. A reverse proxy on the same machine running as
.BR www\-data ,
.BR caddy ,
.B nginx
or
.B nobody
gets no local access, even when it adds no forwarding header; where the owner
cannot be read, nobody gets it.
.B \-\-local\-access any
gives it to every program of this machine (a proxy must then add
.BR X\-Forwarded\-For ),
.B \-\-local\-access off
or
.B \-\-no\-local\-access
to none. The first refusal for each owner is logged.
.PP
Wrong secrets (a key, a console password, a sign-in, a setup code) share one budget
per client address
.RB ( \-\-auth\-failures\-per\-minute ).
Once it is spent, console passwords, sign-ins and setup codes from that address are
429 before they are checked, the right ones too; a valid API key keeps working. A
request that presents no secret costs nothing.
.SH WEB INTERFACE
.B ludotheque serve
also serves a web interface at its address (\fB/\fR). Accounts are
.B admin
(everything) or
.B viewer
(looks, changes nothing); create them with
.BR ludotheque-user (1),
or, while no account exists, on the first-run page
.BR /setup .
On this machine under the loopback rule the page needs only a name and a password;
from another machine, and from everywhere under
.BR \-\-no\-local\-access ,
it also needs the setup code the service writes to standard error when it starts
without an account (the line
.IR "no account exists yet: create the first admin at /setup with the setup code" ).
The code opens nothing once an account exists. Sessions live in an HttpOnly, SameSite=Strict cookie
for 14 days; the service keeps only their SHA-256. On this machine the loopback rule
opens the interface without signing in, unless
.BR \-\-no\-local\-access .
.PP
The library page
.RB ( /library )
lists titles, a row each: the base, update and DLC files, the installed against the
latest known version, and what the title lacks; it filters to the incomplete titles
or one status and sorts by name, date added or size.
.B /title/ID
shows one title with its files by kind and what it lacks;
.B /files
lists every file, with the type and platform filters.
.PP
The routine settings are set from the web: Settings holds the trash's retention,
organize's template and the title data (fetched, or uploaded as files); the Consoles
page and the welcome page hold the listening address. Saved there, the address is
applied at once and kept for the next starts;
.B \-\-listen
(or LUDOTHEQUE_LISTEN) wins when given, and the field then shows it fixed. A saved
address this machine can no longer bind falls back to 127.0.0.1:8080 with a warning.
.SH SHOP
Console installers (Tinfoil, CyberFoil, DBI, Sphaira) browse the whole library and
install from the service's address, given as their shop; each console sends its own
name and password (HTTP Basic), made with
.BR ludotheque-console (1).
.BR \-\-shop\-public
serves the shop without a password; a console that still sends one is never refused
(the right one names it, any other is ignored). The Consoles page of the web interface shows the
address, each installer's settings with the address and login filled in (DBI's
dbi.config lines and Sphaira's HTTP.ini to download), and what the consoles
downloaded; the push to a console has its own page,
.BR /push .
.SH SAVES
CyberFoil's save sync backs up a console's saves to the service, with the console's
name and password; each upload is kept as a version in the data folder
.RB ( \-\-save\-versions ,
.BR \-\-save\-max\-bytes ),
a deleted one goes to the trash: see
.BR ludotheque-saves (7).
.SH SEE ALSO
.BR ludotheque-api (7),
.BR ludotheque-saves (7),
.BR ludotheque-apikey (1),
.BR ludotheque-console (1),
.BR ludotheque-user (1),
.BR ludotheque-trash (1),
.BR ludotheque-titles (1),
.BR ludotheque-keys (1)
"#;

/// What `keys`' page says of the console keys besides its commands.
const KEYS_WRITTEN: &str = r#".SH CONSOLE KEYS
Console keys are the keys of the user's own Nintendo Switch, dumped from it with
Lockpick_RCM into
.IR prod.keys :
lines of
.IR "name = hex digits" ,
names in any case,
.B ;
and
.B #
starting comments, blank lines allowed. With them the service reads what each game
file holds: it identifies files by their contents rather than their names, takes
names and icons from the files themselves (offline), and can verify them (see
.BR ludotheque-verify (1)).
When keys arrive, a running service reads again, once, the files it identified
without them. Without them everything works as it does without. They are not the API keys of
.BR ludotheque-apikey (1).
.SH FILES
The file is
.I DATA/prod.keys
unless
.B \-\-keys
(or
.BR LUDOTHEQUE_KEYS )
names another.
.B import
checks the whole file first: a line that is not
.IR "name = hex digits" ,
or a key the service uses with the wrong length, refuses it with the line number and
the reason (never the value), and nothing is written. A good file is written beside
the old one, synced, made 0600, renamed over it and the folder synced: the previous
file is whole until the new one is. A running service sees the new file the next time
it needs the keys, without a restart; a file it cannot use is logged once, and the
keys it had stay in use. The web interface's Settings page shows the same status and
lets an admin upload the file under the same checks (never shown back, logged or
cached).
.B ludotheque backup
does not copy the keys file.
.SH WHICH KEYS
The readers use
.B header_key
(NCA headers),
.B key_area_key_application_XX
(the key area of an NCA of key revision XX; also
.B _ocean_
and
.BR _system_ )
and
.B titlekek_XX
(a common ticket's title key). When they are absent they are derived, as hactool and
nsz do, from
.BR master_key_XX ,
.BR aes_kek_generation_source ,
.BR aes_key_generation_source ,
.BR key_area_key_application_source " (" _ocean_ ", " _system_ ),
.B titlekek_source
and, for
.BR header_key ,
.B header_kek_source
and
.B header_key_source
with
.BR master_key_00 .
Other names are accepted and ignored.
.B status
lists, for each key revision from 0x00 to the last one with a key, whether
.B key_area_key_application_XX
and
.B titlekek_XX
are present, derived or missing and whether
.B master_key_XX
is there; then the revisions the library's files need and lack, and the files whose
headers do not decrypt with these keys. A master key or source whose CRC32 is not the
public one nsz lists is reported as probably mistyped; the file is still used.
.B status
exits 1 when the file is there but cannot be used.
.SH PRIVACY
No key is ever printed, logged, sent or shown: the status names keys and says where
they came from, nothing more. The service never ships or fetches a key.
.SH SEE ALSO
.BR ludotheque (1),
.BR ludotheque-backup (1)
"#;

/// What `serve`'s page says of the watch and the webhook besides its flags.
const SERVE_WRITTEN: &str = r#".SH WATCH
A running service sees files change under the library and starts a scan for them
by itself, through the one task slot.
.B \-\-watch auto
(the default) uses inotify, and polls on NFS, SMB/CIFS and FUSE mounts, whose server
sends no event;
.B \-\-watch poll
polls wherever the library is;
.B \-\-watch off
leaves changes to
.BR "ludotheque scan" .
Polling reads every folder's time and lists again those whose time moved; it looks
at files changed in the last 10 minutes on every poll and at every file once a
minute. It polls every 2 s, or less often on a large library or a slow server: each
pass waits 200 times as long as it took (about 0.5 % of a core). A changed file is taken once its size and time have stayed still for 3 s
(a download in progress is not read half-written; a burst of changes is one scan),
and only when it disagrees with the library: the service's own writes (the trash,
convert, organize) never start a scan. At start, and when events were lost, the whole
library is compared with the database (reading no file), so changes made while the
service was stopped are seen too. Links to folders are not followed. A change during a task waits for the task to
end; scripts that start tasks meet 409
.B busy
more often and should retry.
.SH WEBHOOK
With
.BR \-\-webhook\-url ,
the service POSTs a small JSON event to that address (Content-Type application/json,
the event's name in
.BR X\-Ludotheque\-Event ):
.TP
.B task_finished
when a task ends, whatever its result:
.IR "{""event"", ""at"", ""task"", ""result"", ""done"", ""total"", ""errors"", ""message""}" .
.TP
.B titles_added
when a task (a scan, usually) brought titles the library did not have:
.IR "{""event"", ""at"", ""count"", ""titles""}" ,
each title
.IR "{""title_id"", ""name"", ""installed_version"", ""latest_version""}" ,
at most 100 listed (\fIcount\fR says how many there are).
.TP
.B updates_available
when titles of the library have an update available that they had not before (a
title data refresh, usually); the same shape.
.PP
.I at
is an RFC 3339 time in UTC. With
.BR \-\-webhook\-secret ,
each request carries
.BR "X\-Ludotheque\-Signature: sha256=" \fIhex\fR,
the HMAC-SHA256 of the raw body under the secret: compare it with your own before
trusting the event. Events are sent in order from their own thread, so a slow or
unreachable receiver never holds a task; any answer other than 2xx is tried again
after 1 s, 5 s, 30 s and 2 min, then dropped, and past 64 waiting events a new one is
dropped. Both are logged with the receiver's host only. Each attempt has 15 s for the
whole exchange, and no redirect is followed (a 3xx is an answer other than 2xx).
.B \-\-webhook\-url\-file
reads the address from the first line of a file, and
.B LUDOTHEQUE_WEBHOOK_URL
holds it too: either keeps a token out of the list of processes, where
.B \-\-webhook\-url
shows it (the service warns at start of an address with credentials or a query given
that way).
.SH NOTIFICATIONS
Each
.B \-\-notify
URL (repeatable;
.B LUDOTHEQUE_NOTIFY
holds one a line), each line of
.BR \-\-notify\-file ,
and each target added in Settings \(-> Notifications is told, in the language of the
first admin's account, with a link to the page when
.B \-\-public\-url
is set:
.TP
.BI ntfy:// "[user:pass@]host[:port]/topic"
(\fBntfys://\fR for https): the message as the body, with X-Title, X-Tags,
X-Priority and X-Click.
.TP
.BI gotify:// "host[:port][/path]/TOKEN"
(\fBgotifys://\fR): POST /message with a priority and the link.
.TP
.BI discord:// WEBHOOK_ID/TOKEN
one embed.
.TP
.BI tgram:// BOT_TOKEN/CHAT_ID
Telegram's sendMessage, in HTML.
.TP
.BI json:// "[user:pass@]host[:port]/path"
(\fBjsons://\fR): a plain JSON POST:
.IR "{""version"", ""title"", ""message"", ""type"", ""event"", ""link""}" .
.PP
Apprise's options after a
.B ?
are not read: a URL holding one is refused.
The events: new titles in the library (one message per task), updates and DLC newly
available for titles of the library, a task that failed or ended partial, files found
damaged, the library's folder missing or unreadable, and a disk with less than
.B \-\-low\-space
percent free (default 5; 0 turns it off), and a save a console backed up with
CyberFoil. A target given at start gets every event
until Settings narrows it. Each target has its own thread and queue, so a slow one
holds no task, no request and no other target: a message that fails is tried again
after 5 s, then at longer intervals for an hour, then dropped with one log line. A URL
holds secrets (a password, a token): they are never shown whole nor logged, and a
.B \-\-notify
given on the command line with one is warned of at start (use
.B \-\-notify\-file
or the variable).
.SH METRICS
.B GET /metrics
answers in the Prometheus text format, every name prefixed
.BR ludotheque_ :
files, bytes and damaged files by type and container, titles with an update
available or DLC missing (read from the database at each scrape), requests by route
class and status with a latency histogram, task runs by kind and result with a
duration histogram, the shop's bytes per console, open connections, private memory
and open file descriptors. It takes an API key (a read-only one is enough:
.BR "X\-Api\-Key" )
or the loopback rule; without either it answers 401, never a redirect.
docs/operations.md gives a scrape configuration and queries for Grafana.
.SH SEE ALSO
.BR ludotheque (1),
.BR ludotheque-api (7)
"#;

/// What `organize`'s page says besides its flags.
const ORGANIZE_WRITTEN: &str = r#".SH TEMPLATE
.B \-\-organize\-template
(default
.BR "{name}/{own_name} [{title_id}][v{version}].{ext}" :
one folder per game, each DLC in it under its own name)
gives each identified file its place, relative to its platform's folder:
.B {name}
is the base game's name (for its updates and DLC too; from the title data when
known),
.B {dlc_name}
the file's own,
.B {own_name}
a DLC's own name and the game's for a base game or an update,
.BR {title_id} ", " {base_title_id} ", " {version} " (0 when unknown), " {type}
(Base, Update, DLC) and
.BR {ext} .
It must be relative and end in
.BR .{ext} .
The characters SMB and exFAT refuse
.RB ( :?*"<>|\e
and control characters) are replaced, no name starts with a dot or ends with a dot
or a space, and each name is kept under 255 bytes by shortening the game's name.
.SH SAFETY
A file whose place is taken is skipped and named, never overwritten; unidentified
files and symlinks stay; a second run moves nothing. Each move is journaled before it
is made and settled at the next start if a stop cut it short. The game's key follows
it in the push list, the shop's download history and the trash. Folders a move
empties are removed, never a platform's folder.
.B \-\-undo
puts a run's files back, last moved first, and names those it cannot move (no longer
where the run put them, or their old place taken: they make the undo partial, exit 1).
A run and
an undo are tasks
.RB ( organize ", " organize_undo ):
both are handed to a server that uses the data folder (see WHILE A SERVER RUNS
above). The web interface's Upkeep page starts the same tasks, after a dialog that
shows the plan (the moves, and the files whose place is taken), and undoes a past run
from its Undo button.
.SH SEE ALSO
.BR ludotheque (1),
.BR ludotheque-dedupe (1),
.BR ludotheque-trash (1)
"#;

/// What `dedupe`'s page says besides its flags.
const DEDUPE_WRITTEN: &str = r#".SH RULE
Files are grouped by title ID and one copy of each stays: a sound file (its header
parses and no task, such as
.BR ludotheque-verify (1),
found it damaged) wins over a damaged one, then the newest version, then the format
.B \-\-dedupe\-keep
prefers (uncompressed .nsp/.xci by default, or compressed .nsz/.xcz), then the first
key in byte order. The group's other files of an older version go to the trash as
.BR superseded ,
those of the same version as
.BR duplicate .
A newer file kept back only because it is damaged is never trashed, and never
supersedes the sound copy kept. A base game
without a version counts as version 0; an update or DLC whose version is unknown is
left alone. Only regular files on disk count: a symlink, or a row whose file is
gone, is neither kept nor trashed. Nothing is deleted: each file can be restored with
.B ludotheque trash restore
until the trash's retention ends. The web interface's Upkeep page lists the same
files, and its button asks first: a dialog with the list as it is then and the space
the trash frees once it purges them; the task then trashes only files it listed.
.SH SEE ALSO
.BR ludotheque (1),
.BR ludotheque-trash (1),
.BR ludotheque-organize (1)
"#;

/// What `verify`'s page says besides its arguments.
const VERIFY_WRITTEN: &str = r#".SH WHAT IT CHECKS
The console keys
.RI ( DATA/prod.keys ,
see
.BR ludotheque-keys (1))
open each Meta NCA and its CNMT, which records the SHA-256 and the size of every
other NCA of its content. Each NCA of the file (the PFS0 of a .nsp or .nsz, the
secure partition of a .xci or .xcz) is hashed whole, once, in one sequential read,
and held to its record; an NCA no record lists (the Meta NCA) is held to the content
ID its name carries. A compressed NCA (.ncz) is decompressed as
.BR ludotheque-convert (1)
does, into nothing: its NCA is hashed, never written.
.PP
Each file is
.B sound
(every NCA matches),
.B damaged
(an NCA whose hash or size is not its record's, a listed NCA the file lacks, an NCA
cut by the end of the file, a compressed NCA that does not decompress; the first is
named, with how many more) or
.B not verifiable
(no CNMT, no header_key, a key revision the keys lack, a read error). A missing delta
fragment is no damage: dumps of updates leave them out. The NCA headers' RSA
signatures are not checked, and neither are the sections' hash trees, which the
whole NCA's hash covers.
.PP
A damaged file is marked: not playable, not offered by the shop, never the copy
.BR ludotheque-dedupe (1)
keeps, and the push asks before sending it. The mark stays until a later verify
finds the file sound or a scan finds it changed. A file that is not verifiable is
neither marked nor cleared. Without a keys file nothing is verified.
.SH EXIT STATUS
0 when every file is sound; 1 when a file is damaged or not verifiable (each is named
on standard output with its reason), when a key names no game, or on an error.
.SH SEE ALSO
.BR ludotheque (1),
.BR ludotheque-keys (1),
.BR ludotheque-convert (1),
.BR ludotheque-api (7)
"#;

/// What the pages of the commands that run a task say of a running server.
const HANDOFF_WRITTEN: &str = r#".SH WHILE A SERVER RUNS
While
.B ludotheque serve
holds the data folder, the command does not refuse: it hands its task to the server
through the socket
.I DATA/ludotheque.sock
(never its TCP port), and the server runs it in its one task slot, as the API's
.B POST /api/v1/scan
runs a scan. While another task runs, the command is refused, naming the task that
runs and who started it, and exits 1. Otherwise it prints the task's progress on a
terminal, then its end, with the same lines and exit status as in the foreground:
0 when the task succeeded, 1 when it ended with errors, failed or was cancelled. The
server's library and settings apply (its template, its dedupe rule, its keys);
.BR compress 's
flags given on the command line apply to this run.
.PP
Ctrl-C (or SIGTERM) asks the server to cancel the task at its next safe point, as in
the foreground; a second Ctrl-C leaves at once. When the command goes away otherwise
(its terminal closed, it was killed), the task goes on in the server: its Tasks page
and
.B GET /api/v1/job
follow it.
.PP
Only root and the server's own user may hand it a task: the socket is mode 0600, and
the server asks the kernel which user connected (SO_PEERCRED) and closes on any
other.
"#;

/// What `health`'s page says besides its flags: the exit status, and the container.
const HEALTH_WRITTEN: &str = r#".SH EXIT STATUS
0 when the service answered
.B GET /api/v1/health
with a 2xx status and
.BR {"status":"ok"} ;
1 when it did not answer within
.BR \-\-timeout\-secs ,
answered another status or another body, or when its address is not known
.RB ( \-\-url
not a base URL, or
.B LUDOTHEQUE_LISTEN
with port 0); 2 on a usage error. Nothing is printed unless
.B \-\-verbose
is given.
.SH CONTAINERS
The image has no shell and no curl: its
.B HEALTHCHECK
runs
.BR "ludotheque health" ,
which asks the address
.B serve
listens on inside the container
.RB ( LUDOTHEQUE_LISTEN ,
.B 0.0.0.0:8080
there, asked on 127.0.0.1). It opens no data folder, so it neither waits for nor
takes the service's lock.
.SH EXAMPLES
.nf
ludotheque health --url http://nas.local:8080 --verbose
LUDOTHEQUE_LISTEN=0.0.0.0:8080 ludotheque health && echo healthy
.fi
.SH SEE ALSO
.BR ludotheque (1),
.BR ludotheque-serve (1),
.BR ludotheque-api (7)
"#;

/// What `console`'s page says of the shop besides its commands.
const CONSOLE_WRITTEN: &str = r#".SH CREDENTIALS
A console's password opens the shop and nothing else: not the public API, not the web
interface. An API key opens no shop route (403). A missing or wrong password is 401
with
.BR "WWW-Authenticate: Basic realm=\(dqludotheque\(dq" ,
a wrong one counts against the same per-address limit of failed attempts as every
other credential (then 429, even for the right one); a missing one costs nothing.
Passwords are 16 random characters in four groups; only their SHA-256 is kept.
.SH SHOP
The shop's address is the service's root,
.BR http://HOST:PORT/ .
Each installer asks it its own way:
.TP
.B Tinfoil
asks
.B /
with its headers (Theme, UID, HAUTH…) and gets its JSON index: every base game,
update and DLC whose header was read and that no task found damaged, each URL ending
in
.BI # "Name [TITLEID][vVERSION].ext" ,
the message set on the Consoles page (by default the service's name and the file
count) and the title data of the library's titles.
.TP
.B CyberFoil
asks
.B /api/shop/sections
(or, given
.BR http://HOST:PORT/shop ,
.BR /shop/api/shop/sections )
and gets the sections new, recommended, updates, dlc and all (never cut), one item
per title: the copy
.B dedupe
keeps.
.TP
.BR DBI ", " Sphaira
ask
.B /
without Tinfoil's headers and get an Apache-style listing, one folder per kind
.RB ( base/ ", " updates/ ", " dlc/ ),
each file named
.BR "Name [TITLEID][vVERSION].ext" .
The same listing is at
.BR /shop/files/ ;
titledb's
.B versions.txt
of every title the title data knows is at
.BR /shop/versions.txt .
.PP
A browser asking
.B /
gets the web interface. Files are read with HEAD and single ranges (206, 416), from
.BI /shop/files/ FOLDER / NAME
or, for scripts,
.BI /shop/files/ KEY .
Downloads run on their own threads: at most
.B \-\-shop\-downloads
(4) per console and
.B \-\-shop\-downloads\-total
(16) in all, and the password is checked before a download thread is taken. A
console past its share waits in its own queue (four requests per download of its
share), outside the threads, which take the consoles' queues in turn; past its
queue it gets 503 with Retry-After. What each console downloaded (once per file
and hour, not per range) shows on the Consoles page.
.SH SEE ALSO
.BR ludotheque (1),
.BR ludotheque-serve (1)
"#;

fn render(cmd: clap::Command, extra: &str) -> String {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd)
        .date(DATE)
        .source(concat!("ludotheque ", env!("CARGO_PKG_VERSION")))
        .manual("Ludothèque")
        .render(&mut out)
        .unwrap();
    // clap_mangen puts a blank line (a paragraph break) between two line breaks
    // before a list of possible values; mandoc warns about it.
    let mut page = String::from_utf8(out)
        .unwrap()
        .replace(".br\n\n.br\n", ".br\n");
    page.push_str(extra);
    page
}

/// The tree the pages describe: without clap's `help` subcommands, which have no page
/// (`ludotheque help CMD` is `ludotheque CMD --help`, which every page covers).
fn documented() -> clap::Command {
    fn without_help(cmd: clap::Command) -> clap::Command {
        cmd.disable_help_subcommand(true)
            .mut_subcommands(without_help)
    }
    ludotheque::testkit::shown(without_help(ludotheque::testkit::Args::command()))
}

/// A page per command of a command (`ludotheque-apikey-create.1`): the command's own
/// page lists them by these names.
fn inner_pages(sub: &clap::Command, pages: &mut Vec<(String, String)>) {
    for inner in sub.get_subcommands() {
        let name = format!("ludotheque-{}-{}", sub.get_name(), inner.get_name());
        let see_also = format!(
            ".SH SEE ALSO\n.BR ludotheque-{} (1),\n.BR ludotheque (1)\n",
            sub.get_name()
        );
        let page = render(
            inner
                .clone()
                .name(&*Box::leak(name.clone().into_boxed_str())),
            &see_also,
        );
        pages.push((format!("{name}.1"), page));
    }
}

fn pages() -> Vec<(String, String)> {
    let root = documented();
    let mut pages = vec![("ludotheque.1".to_string(), render(root.clone(), WRITTEN))];
    for sub in root.get_subcommands() {
        inner_pages(sub, &mut pages);
        let name = format!("ludotheque-{}", sub.get_name());
        let see_also = match sub.get_name() {
            "console" => CONSOLE_WRITTEN,
            "serve" => SERVE_WRITTEN,
            "organize" => ORGANIZE_WRITTEN,
            "dedupe" => DEDUPE_WRITTEN,
            "verify" => VERIFY_WRITTEN,
            "keys" => KEYS_WRITTEN,
            "health" => HEALTH_WRITTEN,
            _ => ".SH SEE ALSO\n.BR ludotheque (1),\n.BR ludotheque-api (7)\n",
        };
        let handed = [
            "scan", "convert", "verify", "compress", "dedupe", "organize",
        ];
        let written = match handed.contains(&sub.get_name()) {
            true => format!("{HANDOFF_WRITTEN}{see_also}"),
            false => see_also.to_string(),
        };
        pages.push((
            format!("{name}.1"),
            render(
                sub.clone().name(&*Box::leak(name.clone().into_boxed_str())),
                &written,
            ),
        ));
    }
    pages
}

#[test]
fn the_checked_in_man_pages_are_up_to_date() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("man");
    let update = std::env::var_os("LUDOTHEQUE_UPDATE_MAN").is_some();
    for (file, page) in pages() {
        let path = dir.join(&file);
        if update {
            std::fs::write(&path, &page).unwrap();
            continue;
        }
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            current == page,
            "man/{file} is out of date: run LUDOTHEQUE_UPDATE_MAN=1 cargo test --test it man"
        );
    }
    assert!(
        dir.join("ludotheque-api.7").exists(),
        "the written API page"
    );
}

/// The pages a page cites, `ludotheque-apikey(1)` or `.BR ludotheque (1)` (roff
/// escapes its dashes: `ludotheque\-apikey(1)`), as file names.
fn citations(page: &str) -> Vec<String> {
    let page = page.replace("\\-", "-");
    let mut found = Vec::new();
    for (at, _) in page.match_indices("ludotheque") {
        let rest = &page[at..];
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(rest.len());
        let (name, after) = rest.split_at(name_len);
        let after = after.strip_prefix(' ').unwrap_or(after);
        let mut chars = after.chars();
        if let (Some('('), Some(section), Some(')')) = (chars.next(), chars.next(), chars.next()) {
            if section.is_ascii_digit() {
                found.push(format!("{name}.{section}"));
            }
        }
    }
    found
}

#[test]
fn every_page_a_page_cites_exists() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("man");
    let mut cited = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let page = std::fs::read_to_string(&path).unwrap();
        for file in citations(&page) {
            cited += 1;
            assert!(
                dir.join(&file).is_file(),
                "{} cites {file}, which man/ does not have",
                path.display()
            );
        }
    }
    assert!(cited > 20, "the check read the citations ({cited})");
    // The check sees what it looks for, escaped or not.
    assert_eq!(
        citations(".BR ludotheque (1),\nludotheque\\-apikey\\-help(1)\nludotheque 0.1"),
        ["ludotheque.1", "ludotheque-apikey-help.1"]
    );
}

#[test]
fn version_help_on_every_command_and_completions() {
    let folders = crate::harness::Folders::new();
    let (st, out, _) = folders.cli(&["--version"]);
    assert!(
        st.success() && out.contains(env!("CARGO_PKG_VERSION")),
        "{out}"
    );
    // The target it was built for and the commit, for a bug report (build.rs).
    assert!(
        out.contains("-linux-") && out.contains(", commit "),
        "{out}"
    );
    let root = documented();
    for sub in root.get_subcommands() {
        let (st, out, _) = folders.cli(&[sub.get_name(), "--help"]);
        assert!(
            st.success() && out.contains("Utilisation :") && out.contains("Affiche l'aide"),
            "{}: {out}",
            sub.get_name()
        );
        for inner in sub.get_subcommands() {
            let (st, out, _) = folders.cli(&[sub.get_name(), inner.get_name(), "--help"]);
            assert!(
                st.success() && out.contains("Utilisation :"),
                "{} {}: {out}",
                sub.get_name(),
                inner.get_name()
            );
        }
    }
    for shell in ["bash", "zsh", "fish"] {
        let (st, out, _) = folders.cli(&["completions", shell]);
        assert!(
            st.success() && out.contains("ludotheque") && out.contains("apikey"),
            "{shell}"
        );
    }
}

#[test]
fn backup_copies_the_database_while_a_server_runs() {
    let folders = crate::harness::Folders::new();
    let key = crate::access::create_key(&folders, "kept", &[]);
    let _s = crate::harness::TestServer::start_on(folders.clone(), &[]);
    let copy = folders.tmp.path().join("backup.db");
    let (st, out, err) = folders.cli(&["backup", copy.to_str().unwrap()]);
    assert!(st.success(), "{out}{err}");
    assert!(out.contains("sauvegardée"), "{out}");
    let conn = rusqlite::Connection::open(&copy).unwrap();
    let name: String = conn
        .query_row("SELECT name FROM api_keys", [], |r| r.get(0))
        .unwrap();
    assert_eq!(name, "kept");
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let (st, _, err) = folders.cli(&["backup", copy.to_str().unwrap()]);
    let exists = ludotheque::testkit::Msg::FileExists {
        file: copy.display().to_string(),
    };
    assert!(
        !st.success() && err.contains(&exists.french()),
        "an existing file is never overwritten: {err}"
    );
    let _ = key;
}

/// The words of `ludotheque-api(7)`'s VALUES section, field by field: a word added to
/// one of the domain's enums fails here until the page lists it.
#[test]
fn the_api_page_lists_every_value_of_every_word() {
    use ludotheque::testkit::words::{
        GameKind, IdSource, MissingKind, Task, TaskResult, TitleStatus, TrashReason, Unit,
    };
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("man/ludotheque-api.7"))
            .unwrap();
    let section = page
        .split_once(".SH VALUES\n")
        .and_then(|(_, rest)| rest.split(".SH ").next())
        .expect("a VALUES section");
    let fields: [(&str, Vec<&str>); 8] = [
        ("type", GameKind::ALL.iter().map(|w| w.as_str()).collect()),
        (
            "identified_by",
            IdSource::ALL.iter().map(|w| w.as_str()).collect(),
        ),
        ("label", Task::ALL.iter().map(|w| w.as_str()).collect()),
        ("unit", Unit::ALL.iter().map(|w| w.as_str()).collect()),
        (
            "result",
            TaskResult::ALL.iter().map(|w| w.as_str()).collect(),
        ),
        (
            "reason",
            TrashReason::ALL.iter().map(|w| w.as_str()).collect(),
        ),
        (
            "status",
            TitleStatus::ALL.iter().map(|w| w.as_str()).collect(),
        ),
        (
            "kind",
            MissingKind::ALL.iter().map(|w| w.as_str()).collect(),
        ),
    ];
    // Every enum of `words` has its field here: a new one is listed or fails.
    let words_rs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/words.rs"))
            .unwrap();
    // Words no API field carries: flag values (their pages list them), organize's
    // journal, what reading a file with the console keys came to (`keys status`),
    // how a push ended (said in its message), an account's role and language (the
    // web interface's), the Switch containers (the API's `format` is any
    // extension), and the notifications' events (ludotheque-serve(1)).
    let elsewhere = [
        "NoticeEvent",
        "Container",
        "WatchMode",
        "DedupeKeep",
        "MoveState",
        "KeysState",
        "PushEnd",
        "Role",
        "Lang",
    ];
    for name in elsewhere {
        assert!(words_rs.contains(&format!("\n    {name} {{")), "{name}");
    }
    assert_eq!(
        words_rs.matches("\nwords! {").count(),
        fields.len() + elsewhere.len(),
        "an enum of words.rs is not checked here"
    );
    for (field, words) in fields {
        let entry = section
            .split(".TP\n")
            .find_map(|e| e.strip_prefix(&format!(".B {field}\n")))
            .unwrap_or_else(|| panic!("VALUES has no entry for {field}"));
        // Only the values (in bold), not the prose around them.
        let listed: Vec<&str> = entry
            .split("\\fB")
            .skip(1)
            .filter_map(|s| s.split_once("\\fR").map(|(word, _)| word))
            .collect();
        for word in words {
            assert!(listed.contains(&word), "VALUES/{field} misses {word}");
        }
    }
}
