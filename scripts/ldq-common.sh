# shellcheck shell=bash
# ldq-common.sh — shared by the ldq-* maintenance scripts; source it, do not run it.
#
# Environment:
#   LUDOTHEQUE_URL           base address of the service (default http://127.0.0.1:8080)
#   LUDOTHEQUE_API_KEY       the API key, or
#   LUDOTHEQUE_API_KEY_FILE  a file holding it (first line)
#   LDQ_MAX_BUSY_TRIES       how many 409 answers to wait through (default 10): the
#                            service also starts scans by itself when it sees files
#                            change (--watch), so a task may be running at any time
#   LDQ_POLL_SECONDS         seconds between two looks at a running task (default 2)
#
# The key reaches curl on its standard input (--config -), never on its command
# line, so it does not show in the process list.

LDQ_URL="${LUDOTHEQUE_URL:-http://127.0.0.1:8080}"
LDQ_MAX_BUSY_TRIES="${LDQ_MAX_BUSY_TRIES:-10}"
LDQ_POLL_SECONDS="${LDQ_POLL_SECONDS:-2}"
LDQ_TMP="$(mktemp -d)"
trap 'rm -rf "$LDQ_TMP"' EXIT

ldq_die() {
    printf '%s : %s\n' "$(basename "$0")" "$*" >&2
    exit 1
}

ldq_key() {
    if [ -n "${LUDOTHEQUE_API_KEY:-}" ]; then
        printf '%s' "$LUDOTHEQUE_API_KEY"
    elif [ -n "${LUDOTHEQUE_API_KEY_FILE:-}" ]; then
        [ -r "$LUDOTHEQUE_API_KEY_FILE" ] || ldq_die "fichier de clé illisible : $LUDOTHEQUE_API_KEY_FILE"
        head -n 1 "$LUDOTHEQUE_API_KEY_FILE" | tr -d '\r\n'
    fi
}

# ldq_request METHOD PATH: prints the HTTP status; the body is in $LDQ_TMP/body and the
# headers in $LDQ_TMP/headers. Status 000 means the service could not be reached.
ldq_request() {
    local key
    key="$(ldq_key)"
    {
        [ -n "$key" ] && printf 'header = "X-Api-Key: %s"\n' "$key"
        true
    } | curl --config - --silent --show-error --max-time 30 \
        --request "$1" --output "$LDQ_TMP/body" --dump-header "$LDQ_TMP/headers" \
        --write-out '%{http_code}' "$LDQ_URL$2" 2>"$LDQ_TMP/curl-error" || true
}

ldq_body() {
    cat "$LDQ_TMP/body" 2>/dev/null
}

# A string field of the JSON body (the service writes compact JSON).
ldq_field() {
    grep -o "\"$1\":\"[^\"]*\"" "$LDQ_TMP/body" | head -n 1 | cut -d '"' -f 4
}

ldq_retry_after() {
    local s
    s="$(grep -i '^retry-after:' "$LDQ_TMP/headers" | tr -dc '0-9')"
    printf '%s' "${s:-1}"
}

# ldq_start_and_wait TASK: start a task (waiting through 409 with backoff and 429 for
# Retry-After), wait for it to finish, exit 0 when its result is ok (1 when partial,
# failed, cancelled or interrupted).
ldq_start_and_wait() {
    local task="$1" delay=1 busy=0 status
    while :; do
        status="$(ldq_request POST "/api/v1/$task")"
        case "$status" in
            202) break ;;
            409)
                busy=$((busy + 1))
                [ "$busy" -ge "$LDQ_MAX_BUSY_TRIES" ] && ldq_die "une autre tâche tourne toujours ; abandon"
                sleep "$delay"
                delay=$((delay * 2 > 60 ? 60 : delay * 2))
                ;;
            429) sleep "$(ldq_retry_after)" ;;
            000) ldq_die "service injoignable à $LDQ_URL ($(cat "$LDQ_TMP/curl-error"))" ;;
            *) ldq_die "réponse $status : $(ldq_body)" ;;
        esac
    done
    printf 'Tâche %s lancée.\n' "$task"
    while :; do
        sleep "$LDQ_POLL_SECONDS"
        status="$(ldq_request GET /api/v1/job)"
        case "$status" in
            200) grep -q '"running":false' "$LDQ_TMP/body" && break ;;
            429) sleep "$(ldq_retry_after)" ;;
            *) ldq_die "réponse $status en suivant la tâche : $(ldq_body)" ;;
        esac
    done
    local result message
    result="$(ldq_field result)"
    message="$(ldq_field message)"
    # The result in French; the message is the API's, in English.
    local said
    case "$result" in
        ok) said="réussie" ;;
        partial) said="terminée avec des erreurs" ;;
        failed) said="échouée" ;;
        cancelled) said="annulée" ;;
        interrupted) said="interrompue" ;;
        *) said="$result" ;;
    esac
    printf 'Tâche %s : %s [%s] (%s)\n' "$task" "$said" "$result" "$message"
    # partial: the task finished but some files failed; name each with its reason.
    [ "$result" = partial ] && ldq_failures
    [ "$result" = ok ]
}

# ldq_failures: one line per failed file of the last run ("  KEY : REASON").
ldq_failures() {
    grep -oE '"key":(null|"[^"]*"),"error":"[^"]*","message":"[^"]*"' "$LDQ_TMP/body" |
        sed -E 's/^"key":"?([^"]*)"?,"error":"[^"]*","message":"([^"]*)"$/  \1 : \2/'
}
