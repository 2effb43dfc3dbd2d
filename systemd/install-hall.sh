#!/usr/bin/env bash
# Install the head referee's server of a hall (Debian 12, as root), beside its MQTT broker:
#   sudo HALL=spring-open TABLES=60 systemd/install-hall.sh        # asks for the hall PIN
#   sudo HALL=spring-open TABLES="east-1 east-2 west-1" RIICHI_PIN=2468 systemd/install-hall.sh
# Installs mosquitto, writes its users (one per table, and `hall`), ACL and settings
# (riichi-referee hall-broker), the `riichi` user, a venv in /opt/riichi-referee/venv,
# /etc/riichi-referee/hall.toml (kept if present), the hall PIN, and enables mosquitto and
# riichi-referee-hall. Each table's password is left in /etc/riichi-referee/hall-broker/
# passwords/<table>.password: copy it to that table's Pi (its [hall] password_file).
# Also the hall's certificate authority (/etc/riichi-referee/hall-ca/, made once, kept): the
# one CA of the hall. It signs the broker's certificate (Mosquitto listens with TLS only, on
# 8883: tables and the hall server verify it), the hall page's (https on 8443; plain http on
# 8080 only sends phones there) and every table's dashboard's, so a referee's phone trusts it
# once and a table trusts it for both. HALL_NAMES: the names and addresses tables and phones
# use for this server (default: its hostname, hostname.local and its addresses now;
# localhost and 127.0.0.1 are always added, for the hall server's own connection to the
# broker). Make a table's certificate with it here and hand it to that table's install.sh:
#   sudo systemd/make-cert.sh server /etc/riichi-referee/hall-ca/tables /etc/riichi-referee/hall-ca \
#        east-1 east-1 east-1.local 192.168.10.21
#   (on the Pi) sudo TLS_CA=hall-ca.crt TLS_CERT=east-1.crt TLS_KEY=east-1.key systemd/install.sh
# and set that table's [hall] tls_ca = "/etc/riichi-referee/tls/hall-ca.crt" (the same CA).
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
prefix=${PREFIX:-/opt/riichi-referee}
etc=${ETC:-/etc/riichi-referee}
user=${RIICHI_USER:-riichi}
unitdir=${UNITDIR:-/etc/systemd/system}
hall=${HALL:?set HALL to the name of the hall, e.g. HALL=spring-open}
tables=${TABLES:?set TABLES to a number (t01..tN) or the tables names}

die() { echo "install-hall.sh: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "run as root (sudo $0)"
command -v systemctl >/dev/null || die "systemd is required"

DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    python3 python3-venv mosquitto openssl

if ! id "$user" >/dev/null 2>&1; then
    useradd --system --home-dir /var/lib/riichi-referee-hall --no-create-home \
        --shell /usr/sbin/nologin --user-group "$user"
fi

install -d -m 0755 "$prefix"
rm -rf "$prefix/src.new"
mkdir "$prefix/src.new"
tar -C "$src" --exclude=.git --exclude=.venv --exclude='__pycache__' --exclude='*.sqlite*' \
    -cf - . | tar -C "$prefix/src.new" -xf -
rm -rf "$prefix/src"
mv "$prefix/src.new" "$prefix/src"
[ -x "$prefix/venv/bin/python" ] || python3 -m venv "$prefix/venv"
"$prefix/venv/bin/python" -m pip install --quiet --upgrade pip
"$prefix/venv/bin/python" -m pip install --quiet "$prefix/src"

install -d -m 0750 -g "$user" "$etc"

# The hall's CA: its key stays here, root-only; its certificate is public (hall-ca.crt).
"$src/systemd/make-cert.sh" ca "$etc/hall-ca" "$hall"
install -m 0644 "$etc/hall-ca/ca.crt" "$etc/hall-ca.crt"
# The broker's and the hall page's certificates from it (made again with HALL_NAMES).
servers="$etc/hall-ca/servers"
if [ ! -f "$servers/broker.crt" ] || [ ! -f "$servers/hall.crt" ] || [ -n "${HALL_NAMES:-}" ]; then
    # shellcheck disable=SC2207
    names=(${HALL_NAMES:-$(hostname) $(hostname).local $(hostname -I 2>/dev/null)} localhost 127.0.0.1)
    "$src/systemd/make-cert.sh" server "$servers" "$etc/hall-ca" broker "${names[@]}"
    "$src/systemd/make-cert.sh" server "$servers" "$etc/hall-ca" hall "${names[@]}"
fi
install -d -m 0750 -g "$user" "$etc/hall-tls"
cat "$servers/hall.crt" "$etc/hall-ca/ca.crt" > "$etc/hall-tls/hall.crt.new"  # the chain
install -m 0644 "$etc/hall-tls/hall.crt.new" "$etc/hall-tls/hall.crt"
rm -f "$etc/hall-tls/hall.crt.new"
install -m 0640 -g "$user" "$servers/hall.key" "$etc/hall-tls/hall.key"

# The broker: a user per table, the ACL, persistence (kept passwords on a second run), and
# its one listener with TLS (8883) from the hall's CA.
# shellcheck disable=SC2086
"$prefix/venv/bin/riichi-referee" hall-broker --hall "$hall" --tables $tables \
    --out "$etc/hall-broker" --files-at /etc/mosquitto/riichi --tls
install -d -m 0750 -g mosquitto /etc/mosquitto/riichi
install -m 0640 -g mosquitto "$etc/hall-broker/riichi.acl" "$etc/hall-broker/riichi.passwd" \
    /etc/mosquitto/riichi/
install -m 0644 "$etc/hall-ca/ca.crt" /etc/mosquitto/riichi/ca.crt
install -m 0644 "$servers/broker.crt" /etc/mosquitto/riichi/server.crt
install -m 0640 -g mosquitto "$servers/broker.key" /etc/mosquitto/riichi/server.key
install -m 0644 "$etc/hall-broker/riichi-hall.conf" /etc/mosquitto/conf.d/riichi-hall.conf
install -m 0640 -g "$user" "$etc/hall-broker/passwords/hall.password" "$etc/hall-broker.password"

if [ ! -f "$etc/hall.toml" ]; then
    sed "s/^name = \"spring-open\"/name = \"$hall\"/" "$src/systemd/hall.toml" > "$etc/hall.toml"
    chgrp "$user" "$etc/hall.toml"
    chmod 0640 "$etc/hall.toml"
elif ! grep -q '^tls_ca' "$etc/hall.toml" || ! grep -q '^certfile' "$etc/hall.toml"; then
    echo "install-hall.sh: $etc/hall.toml is kept, but the broker now listens with TLS only and"
    echo "  the page is https: add tls_ca to [broker] and certfile, keyfile, https_port and"
    echo "  ca_cert to [web], as in $src/systemd/hall.toml"
fi
if [ ! -f "$etc/hall-pin.hash" ]; then
    if [ -n "${RIICHI_PIN:-}" ]; then
        printf '%s\n' "$RIICHI_PIN" | "$prefix/venv/bin/riichi-referee" set-pin --stdin \
            --file "$etc/hall-pin.hash"
    else
        "$prefix/venv/bin/riichi-referee" set-pin --file "$etc/hall-pin.hash"
    fi
    chgrp "$user" "$etc/hall-pin.hash"
    chmod 0640 "$etc/hall-pin.hash"
fi

install -m 0644 "$src/systemd/riichi-referee-hall.service" "$unitdir/riichi-referee-hall.service"
install -m 0644 "$src/systemd/riichi-referee-hall-http.service" \
    "$unitdir/riichi-referee-hall-http.service"
systemctl daemon-reload
systemctl enable mosquitto.service
systemctl restart mosquitto.service
systemctl enable --now riichi-referee-hall.service riichi-referee-hall-http.service
# A certificate made on this run is read only when the servers start.
systemctl try-restart riichi-referee-hall.service riichi-referee-hall-http.service
echo "install-hall.sh: done. The hall's page is https on port 8443 (http 8080 sends phones"
echo "  there); the broker listens with TLS on 8883. Each table's password is in"
echo "  $etc/hall-broker/passwords/ (copy <table>.password to that table's [hall] password_file,"
echo "  with tls_ca = the hall's CA: systemd/install.sh puts it in /etc/riichi-referee/tls/)"
echo "  The hall's CA, for referees' phones to trust once (give them this fingerprint):"
openssl x509 -in "$etc/hall-ca.crt" -noout -subject -fingerprint -sha256 | sed 's/^/  /'
