#!/usr/bin/env bash
# Install riichi-referee as a service on a Raspberry Pi (Raspberry Pi OS / Debian 12, as root):
#   sudo systemd/install.sh              # asks for the referee PIN
#   sudo RIICHI_PIN=1234 systemd/install.sh
#   sudo TLS_CA=hall-ca.crt TLS_CERT=east-1.crt TLS_KEY=east-1.key systemd/install.sh
#                                        # with the certificate the hall made for this table
# Creates the `riichi` user (groups gpio, video), a venv in /opt/riichi-referee/venv with
# --system-site-packages (picamera2 and lgpio come from apt), /etc/riichi-referee/table.toml
# (kept if present), the PIN hash, the dashboard's HTTPS certificate in /etc/riichi-referee/tls
# (the hall's, or one made here: see below), and enables the three units. Safe to run again
# to upgrade.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
prefix=${PREFIX:-/opt/riichi-referee}
etc=${ETC:-/etc/riichi-referee}
user=${RIICHI_USER:-riichi}
unitdir=${UNITDIR:-/etc/systemd/system}

die() { echo "install.sh: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "run as root (sudo $0)"
command -v systemctl >/dev/null || die "systemd is required"

if command -v apt-get >/dev/null; then
    pkgs=(python3 python3-venv openssl)
    # The camera and GPIO libraries are built for the Pi's kernel and come from apt.
    apt-cache show python3-picamera2 >/dev/null 2>&1 && pkgs+=(python3-picamera2)
    apt-cache show python3-lgpio >/dev/null 2>&1 && pkgs+=(python3-lgpio)
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${pkgs[@]}"
fi

for group in gpio video; do
    getent group "$group" >/dev/null || groupadd --system "$group"
done
if ! id "$user" >/dev/null 2>&1; then
    useradd --system --home-dir /var/lib/riichi-referee --no-create-home \
        --shell /usr/sbin/nologin --user-group "$user"
fi
usermod -a -G gpio,video "$user"

# The source tree the units point at (web/gunicorn.conf.py, README), then the venv.
install -d -m 0755 "$prefix"
rm -rf "$prefix/src.new"
mkdir "$prefix/src.new"
tar -C "$src" --exclude=.git --exclude=.venv --exclude='__pycache__' --exclude='*.sqlite*' \
    -cf - . | tar -C "$prefix/src.new" -xf -
rm -rf "$prefix/src"
mv "$prefix/src.new" "$prefix/src"
if [ ! -x "$prefix/venv/bin/python" ]; then
    python3 -m venv --system-site-packages "$prefix/venv"
fi
"$prefix/venv/bin/python" -m pip install --quiet --upgrade pip
"$prefix/venv/bin/python" -m pip install --quiet "$prefix/src"

install -d -m 0750 -g "$user" "$etc"
if [ ! -f "$etc/table.toml" ]; then
    {
        cat "$src/systemd/table.toml"
        for sample in "$src/hardware/table.toml" "$src/vision/table.toml"; do
            if [ -f "$sample" ]; then
                echo
                # Only the sample's own sections: [service]/[journal]/[web] come from above.
                awk '/^\[(service|journal|web)\]/{skip=1; next} /^\[/{skip=0} !skip' "$sample"
            fi
        done
    } > "$etc/table.toml"
    chgrp "$user" "$etc/table.toml"
    chmod 0640 "$etc/table.toml"
    echo "install.sh: wrote $etc/table.toml - check the button pins and camera before a game"
fi
"$prefix/venv/bin/python" -c "from table.config import load_config; load_config('$etc/table.toml')" \
    || die "$etc/table.toml is not valid (see above)"

if [ ! -f "$etc/pin.hash" ]; then
    if [ -n "${RIICHI_PIN:-}" ]; then
        printf '%s\n' "$RIICHI_PIN" | "$prefix/venv/bin/riichi-referee" set-pin --stdin \
            --file "$etc/pin.hash"
    else
        "$prefix/venv/bin/riichi-referee" set-pin --file "$etc/pin.hash"
    fi
    chgrp "$user" "$etc/pin.hash"
    chmod 0640 "$etc/pin.hash"
fi

# HTTPS for the referee's pages (web/https.py): the venue's Wi-Fi is often open, and the PIN
# must not cross it in clear. The table's certificate, its key and the CA that signed it:
# - the hall's, when given (TLS_CA, TLS_CERT, TLS_KEY: made on the hall server with
#   make-cert.sh server, see install-hall.sh): a referee's phone trusts the hall's CA once;
# - otherwise made here, signed by a CA of this table's own (kept across runs, so phones
#   that trust it go on trusting it). TLS_NAMES: the names and addresses phones use for this
#   Pi (default: its hostname, hostname.local and its addresses now).
tls="$etc/tls"
install -d -m 0750 -g "$user" "$tls"
if [ -n "${TLS_CA:-}${TLS_CERT:-}${TLS_KEY:-}" ]; then
    [ -f "${TLS_CA:-}" ] && [ -f "${TLS_CERT:-}" ] && [ -f "${TLS_KEY:-}" ] ||
        die "TLS_CA, TLS_CERT and TLS_KEY go together: the hall's CA and this table's files"
    openssl verify -CAfile "$TLS_CA" "$TLS_CERT" >/dev/null ||
        die "$TLS_CERT is not signed by $TLS_CA"
    ca="$TLS_CA" cert="$TLS_CERT" key="$TLS_KEY"
elif [ ! -f "$tls/table.crt" ] || [ -n "${TLS_NAMES:-}" ]; then
    # shellcheck disable=SC2207
    names=(${TLS_NAMES:-$(hostname) $(hostname).local $(hostname -I 2>/dev/null)})
    "$src/systemd/make-cert.sh" ca "$tls/own-ca" "$(hostname)"
    "$src/systemd/make-cert.sh" table "$tls/made" "$tls/own-ca" table "${names[@]}"
    ca="$tls/own-ca/ca.crt" cert="$tls/made/table.crt" key="$tls/made/table.key"
fi
if [ -n "${cert:-}" ]; then
    install -m 0644 "$ca" "$tls/hall-ca.crt"
    cat "$cert" "$ca" > "$tls/table.crt.new"  # the chain: the table's, then the CA's
    install -m 0644 "$tls/table.crt.new" "$tls/table.crt"
    rm -f "$tls/table.crt.new"
    install -m 0640 -g "$user" "$key" "$tls/table.key"
fi

install -m 0644 "$src/systemd/riichi-referee.service" "$unitdir/riichi-referee.service"
install -m 0644 "$src/systemd/riichi-referee-web.service" "$unitdir/riichi-referee-web.service"
install -m 0644 "$src/systemd/riichi-referee-web-tls.service" \
    "$unitdir/riichi-referee-web-tls.service"
systemctl daemon-reload
systemctl enable --now riichi-referee.service riichi-referee-web.service \
    riichi-referee-web-tls.service
# A certificate made or taken on this run is read only when gunicorn starts.
systemctl try-restart riichi-referee-web-tls.service
if grep -q '^\[hall\]' "$etc/table.toml" && ! grep -q '^tls_ca' "$etc/table.toml"; then
    echo "install.sh: $etc/table.toml has [hall] without tls_ca: the hall's broker listens with"
    echo "  TLS only (install-hall.sh); add tls_ca = \"$tls/hall-ca.crt\" (given TLS_CA, the hall's CA)"
fi
echo "install.sh: done. Status: systemctl status riichi-referee; spectators on http port 8000,"
echo "  the referee on https port 8443. A referee's phone trusts this CA once"
echo "  (http://<this pi>:8000/trust); check it shows this fingerprint:"
openssl x509 -in "$tls/hall-ca.crt" -noout -subject -fingerprint -sha256 | sed 's/^/  /'
