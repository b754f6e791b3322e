//! THE route table: every route of the service in one list you can read in one
//! screen, with the access class that says who may call it. Matching and access
//! checks are `http::router`; the handlers live with their feature in `api::v1` and
//! `web`. A new route is one line here (and, under `/api/v1/`, one entry in
//! `api/v1/openapi.json`: a test keeps the two in step).

use crate::api::dav;
use crate::api::download;
use crate::api::metrics;
use crate::api::saves;
use crate::api::shop;
use crate::api::v1;
use crate::error::Error;
use crate::http::router::{route, route_if, Access, Ctx, Route, Table};
use crate::http::Reply;
use crate::web;

/// The table the server runs.
pub const TABLE: Table = Table {
    routes: ROUTES,
    sign_in: web::sign_in::to_sign_in,
    // The shop's files, also asked from the root by installers given the root, and a
    // file downloaded from its page: a worker checks the caller, then the download
    // threads serve them.
    downloads: &[
        "/shop/files/",
        "/base/",
        "/updates/",
        "/dlc/",
        "/download/",
        "/api/saves/download/",
        "/dav/",
    ],
    // A console's save upload and WebDAV `PUT`: read as they arrive, to a file
    // (`http::upload`).
    uploads: &["/api/saves/upload/", "/dav/", "/api/titles/import"],
    missing_page: web::missing::missing_page,
    error_page: web::missing::error_page,
    not_pages: &["/api/", "/shop", "/static/", "/dl/"],
};

use Access::*;

#[rustfmt::skip]
const ROUTES: &[Route] = &[
    route("GET", "/api/v1/health", Public, v1::system::health),
    route("GET", "/api/v1/openapi.json", Public, v1::system::openapi),
    // Prometheus: an API key (read-only is enough) or the loopback rule.
    route("GET", "/metrics", Private, metrics::metrics),
    route("GET", "/api/v1/system", Private, v1::system::system),
    route("GET", "/api/v1/stats", Private, v1::library::stats),
    route("GET", "/api/v1/library", Private, v1::library::list),
    route("GET", "/api/v1/library/{key*}", Private, v1::library::one),
    route("GET", "/api/v1/search", Private, v1::library::search),
    route("GET", "/api/v1/platforms", Private, v1::library::platforms),
    route("GET", "/api/v1/titles", Private, v1::titles::list),
    route("GET", "/api/v1/titles/{title_id}", Private, v1::titles::one),
    route("GET", "/api/v1/missing", Private, v1::titles::missing),
    route("GET", "/api/v1/job", Private, v1::jobs::job),
    route("GET", "/api/v1/trash", Private, v1::trash::trash),
    route("POST", "/api/v1/scan", Private, v1::jobs::scan),
    route("POST", "/api/v1/convert", Private, v1::jobs::convert),
    route("GET", "/api/v1/device", Private, v1::device::device),
    route("POST", "/api/v1/push", Private, v1::jobs::push),
    route("POST", "/api/v1/compress", Private, v1::jobs::compress),
    // The console's downloads during a push: gated by the push's token, not by a key.
    route("GET", "/dl/{token}/{name}", Public, download::download),
    route("DROP", "/dl/{token}/{name}", Public, download::download),
    // The shop, for console installers (Tinfoil, CyberFoil, DBI, Sphaira…).
    route_if("GET", "/", Shop, shop::is_installer, shop::root),
    route_if("GET", "/{path*}", Shop, shop::is_installer_in_folder, shop::files),
    route("GET", "/shop", Shop, shop::shop),
    // Tinfoil given `…/shop/` asks with the slash.
    route("GET", "/shop/", Shop, shop::shop),
    route("GET", "/shop/versions.txt", Shop, shop::versions),
    route("GET", "/shop/files/{path*}", Shop, shop::files),
    route("GET", "/api/shop/sections", Shop, shop::sections),
    route("GET", "/shop/api/shop/sections", Shop, shop::sections_under_shop),
    route("GET", "/api/shop/icon/{title_id}", Shop, shop::icon),
    route("GET", "/shop/api/shop/icon/{title_id}", Shop, shop::icon),
    // CyberFoil's save sync: a console's own saves, with its login only.
    route("GET", "/api/saves/list", Console, saves::list),
    route("POST", "/api/saves/upload/{title_id}", Console, saves::upload),
    route("GET", "/api/saves/download/{title_id}", Console, saves::download),
    route("GET", "/api/saves/download/{title_id}/{save_id}", Console, saves::download),
    route("DELETE", "/api/saves/delete/{title_id}", Console, saves::delete),
    route("DELETE", "/api/saves/delete/{title_id}/{save_id}", Console, saves::delete),
    route("POST", "/api/saves/delete/{title_id}", Console, saves::delete),
    route("POST", "/api/saves/delete/{title_id}/{save_id}", Console, saves::delete),
    // WebDAV (class 1) over a console's own space: every method, one handler.
    route("*", "/dav", Console, dav::handle),
    route("*", "/dav/{path*}", Console, dav::handle),
    // The web interface's pages and assets.
    route("GET", "/", Page, web::dashboard::dashboard),
    route("GET", "/library", Page, web::titles::library_page),
    route("GET", "/title/{title_id}", Page, web::titles::title_page),
    route("GET", "/icon/{title_id}", Page, shop::icon),
    route("GET", "/files", Page, web::library::files_page),
    route("GET", "/game/{key*}", Page, web::library::game),
    route("GET", "/download/{key*}", Page, web::library::download_file),
    route("GET", "/tasks", Page, web::tasks::tasks_page),
    route("GET", "/tasks/{id}", Page, web::tasks::run_page),
    route("GET", "/device", Page, web::device::device_page),
    route("GET", "/push", Page, web::device::push_page),
    route("GET", "/consoles/{name}", Page, web::consoles::console_page),
    route("GET", "/consoles/{name}/files/{path*}", Page, web::consoles::download),
    route("GET", "/trash", Page, web::trash::trash_page),
    route("GET", "/upkeep", Page, web::upkeep::upkeep_page),
    route("GET", "/health", Page, web::health::health_page),
    route("GET", "/platforms", Page, web::library::platforms_page),
    route("GET", "/settings", Page, web::settings::settings_page),
    route("GET", "/settings/keys", Page, web::settings::keys_page),
    route("GET", "/settings/notifications", Page, web::notifications::notifications_page),
    route("GET", "/login", Public, web::sign_in::login_page),
    route("GET", "/setup", Public, web::sign_in::setup_page),
    route("GET", "/welcome", Page, web::first_steps::welcome_page),
    route("GET", "/static/{name}", Public, web::assets::asset),
    // Internal routes of the web interface: not part of the public contract.
    route("POST", "/api/login", Public, web::sign_in::login),
    route("POST", "/api/setup", Public, web::sign_in::setup),
    route("POST", "/api/logout", Own, web::sign_in::logout),
    route("GET", "/api/me", Own, web::settings::me),
    route("POST", "/api/me/lang", Own, web::settings::set_lang),
    route("POST", "/api/me/password", Own, web::settings::set_password),
    route("GET", "/api/users", Private, web::settings::list_users),
    route("GET", "/api/keys", Private, web::settings::list_keys),
    route("POST", "/api/keys", Private, web::settings::create_key),
    route("DELETE", "/api/keys/{id}", Private, web::settings::revoke_key),
    route("GET", "/api/console-keys", Private, web::console_keys::status),
    route("POST", "/api/console-keys", Private, web::console_keys::upload),
    route("GET", "/api/stats", Private, v1::library::stats),
    route("GET", "/api/job", Private, web::tasks::job_live),
    route("GET", "/api/tasks", Private, web::tasks::task_history),
    route("POST", "/api/scan", Private, v1::jobs::scan),
    route("POST", "/api/convert", Private, v1::jobs::convert),
    route("POST", "/api/push", Private, v1::jobs::push),
    route("POST", "/api/dedupe", Private, web::upkeep::start_dedupe),
    route("POST", "/api/organize", Private, web::upkeep::start_organize),
    route("GET", "/api/dedupe/preview", Private, web::upkeep::dedupe_preview),
    route("GET", "/api/organize/preview", Private, web::upkeep::organize_preview),
    route("POST", "/api/organize/settings", Private, web::upkeep::set_template),
    route("POST", "/api/organize/runs/{id}/undo", Private, web::upkeep::undo_organize),
    route("POST", "/api/verify", Private, web::tasks::start_verify),
    route("POST", "/api/verify/{key*}", Private, web::tasks::start_verify_file),
    route("POST", "/api/compress", Private, v1::jobs::compress),
    route("POST", "/api/compress/{key*}", Private, web::tasks::start_compress_file),
    route("POST", "/api/compress-files", Private, web::selection::compress),
    route("POST", "/api/compress-settings", Private, web::compress::set_settings),
    route("POST", "/api/files/trash", Private, web::selection::trash),
    route("POST", "/api/files/push", Private, web::selection::push),
    route("POST", "/api/files/convert", Private, web::selection::convert),
    route("GET", "/api/platforms", Private, v1::library::platforms),
    route("POST", "/api/platforms", Private, web::library::add_platform),
    route("DELETE", "/api/platforms/{slug}", Private, web::library::delete_platform),
    route("POST", "/api/library/folders", Private, web::folders::add),
    route("DELETE", "/api/library/folders/{name}", Private, web::folders::remove),
    route("GET", "/api/device", Private, v1::device::device),
    route("POST", "/api/titles/update", Private, web::titles::start_update),
    route("POST", "/api/titles/settings", Private, web::titles::set_settings),
    route("POST", "/api/titles/import", Private, web::title_files::import),
    route("POST", "/api/titles/{title_id}/ignore", Private, web::titles::set_ignore),
    route("DELETE", "/api/library/{key*}", Private, web::trash::delete_game),
    route("GET", "/api/trash", Private, v1::trash::trash),
    route("POST", "/api/trash/purge", Private, web::trash::purge_expired),
    route("POST", "/api/trash/settings", Private, web::trash::set_retention),
    route("POST", "/api/trash/{id}/restore", Private, web::trash::restore),
    route("DELETE", "/api/trash/{id}", Private, web::trash::purge),
    route("POST", "/api/job/cancel", Private, web::tasks::cancel_job),
    route("POST", "/api/consoles", Private, web::shop::add_console),
    route("DELETE", "/api/consoles/{name}", Private, web::shop::remove_console),
    route("POST", "/api/consoles/{name}/password", Private, web::shop::new_console_password),
    route("GET", "/api/consoles/{name}", Private, web::consoles::status),
    route("DELETE", "/api/consoles/{name}/files/{path*}", Private, web::consoles::delete),
    route("POST", "/api/shop/message", Private, web::shop::set_message),
    route("POST", "/api/notify", Private, web::notifications::add),
    route("POST", "/api/notify/{id}/events", Private, web::notifications::set_events),
    route("POST", "/api/notify/{id}/test", Private, web::notifications::test),
    route("DELETE", "/api/notify/{id}", Private, web::notifications::remove),
    route("POST", "/api/device", Private, web::device::set_device),
    route("POST", "/api/listen", Private, web::listen::set_listen),
    route("DELETE", "/api/device", Private, web::device::clear_device),
    route("GET", "/api/push", Private, web::device::push_list),
    route("DELETE", "/api/push", Private, web::device::push_clear),
    route("POST", "/api/push-title/{id}", Private, web::device::push_add_title),
    route("POST", "/api/push/{key*}", Private, web::device::push_add),
    route("DELETE", "/api/push/{key*}", Private, web::device::push_remove),
    // Administering from the browser: accounts, purging the trash (restore under
    // another name is the restore route above, with a body).
    route("POST", "/api/users", Private, web::accounts::add),
    route("DELETE", "/api/users/{name}", Private, web::accounts::remove),
    route("POST", "/api/users/{name}/role/{role}", Private, web::accounts::set_role),
    route("POST", "/api/users/{name}/password", Private, web::accounts::reset_password),
    route("POST", "/api/trash/empty", Private, web::trash::empty),
    route("POST", "/api/trash/purge-converted", Private, web::trash::purge_converted),
    // The console page's connection test: the only time the service probes the console.
    route("POST", "/api/device/test", Private, web::device::test_device),
    route("GET", "/api/test/panic", Test, test_panic),
];

/// Lets the tests check that a panicking handler becomes a 500 and the pool survives.
fn test_panic(_: &Ctx) -> Result<Reply, Error> {
    panic!("deliberate panic from the test route")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Kind;
    use crate::http::router::{find, tests::segs};

    #[test]
    fn the_router_and_the_openapi_document_have_the_same_routes() {
        let doc: serde_json::Value = serde_json::from_str(v1::system::OPENAPI).unwrap();
        let mut documented: Vec<String> = Vec::new();
        for (path, ops) in doc["paths"].as_object().unwrap() {
            for method in ops.as_object().unwrap().keys() {
                documented.push(format!("{} {path}", method.to_uppercase()));
            }
        }
        let mut routed: Vec<String> = ROUTES
            .iter()
            .filter(|r| r.pattern.starts_with("/api/v1/"))
            .map(|r| format!("{} {}", r.method, r.pattern.replace("*}", "}")))
            .collect();
        documented.sort();
        routed.sort();
        assert_eq!(routed, documented);
    }

    #[test]
    fn wrong_method_lists_the_allowed_ones() {
        let e = find(TABLE.routes, "DELETE", &segs("/api/v1/health"), false, None).unwrap_err();
        assert_eq!(
            e.kind,
            Kind::MethodNotAllowed {
                allow: "GET, HEAD".into()
            }
        );
        let (head, _) = find(TABLE.routes, "HEAD", &segs("/api/v1/health"), false, None).unwrap();
        assert_eq!(head.pattern, "/api/v1/health");
        assert_eq!(
            find(TABLE.routes, "GET", &segs("/api/test/panic"), false, None)
                .unwrap_err()
                .kind,
            Kind::NotFound
        );
    }
}
