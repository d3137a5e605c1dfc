#!/bin/sh
# NetBox REST queries with curl: with -G, curl appends each -d / --data-urlencode to the URL.
NB="${NETBOX_URL:-https://netbox.example.com}"
H="Authorization: Token $NETBOX_TOKEN"

# Active leaf switches of one site (right).
curl -sG "$NB/api/dcim/devices/" -H "$H" \
  -d role=leaf -d status=active --data-urlencode "site=$SITE"

# The same with the NetBox 3 role filter and a comma list of site ids.
curl -sG "$NB/api/dcim/devices/" -H "$H" \
  -d device_role=leaf \
  -d site_id=3,7

# Cables from interfaces (the type filter matches either end).
curl -G "$NB/api/dcim/cables/?status=connected" -H "$H" --data-urlencode "termination_a_type=dcim.interface"

# A POST: the data is the new object, not filters.
curl -X POST "$NB/api/dcim/sites/" -H "$H" -H "Content-Type: application/json" -d '{"name": "dc3", "slug": "dc3"}'
