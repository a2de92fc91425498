package kafka

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// NotClassicAnswer is Apache Kafka 4's answer to a classic DescribeGroups
// naming only groups of another type (consumer protocol, share, streams),
// as its GroupMetadataManager.describeGroups gives it: each group Dead, no
// protocol, no members, and from v6 error 69 GROUP_ID_NOT_FOUND, "Group …
// is not a classic group." kfake answers such a request with the group's
// live state and no members; the demo's embedded cluster and the tests'
// answer with this instead.
func NotClassicAnswer(req *kmsg.DescribeGroupsRequest) *kmsg.DescribeGroupsResponse {
	res := req.ResponseKind().(*kmsg.DescribeGroupsResponse)
	for _, g := range req.Groups {
		rg := kmsg.NewDescribeGroupsResponseGroup()
		rg.Group, rg.State = g, "Dead"
		if req.GetVersion() >= 6 {
			rg.ErrorCode = kerr.GroupIDNotFound.Code
			rg.ErrorMessage = kmsg.StringPtr("Group " + g + " is not a classic group.")
		}
		res.Groups = append(res.Groups, rg)
	}
	return res
}
