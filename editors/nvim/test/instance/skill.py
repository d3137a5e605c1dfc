import pynetbox

nb = pynetbox.api("https://netbox.example.com", token="x")
vms = nb.dcim.devices.filter(cf_vm_tier=2)
sessions = nb.plugins.bgp.session.filter(peer_gr)
